// A round record's binding to the deployment, checked in the browser (docs/fairness.md, "Records
// bound to the deployment"): the record's digest recomputed from its content, the server's Ed25519
// signature of it under the published public key (WebCrypto's Ed25519: Chromium 137+, Firefox 129+,
// Safari 17+, Node 20), and its rules document against its fingerprint and the published document.
// Pure: no DOM, no network; the caller fetches the record, the key and the published rules. Each
// check's result is a catalogue key and its parameters, as fairness.js's.

import { keyedError, subtle } from "./fairness.js";

const PREFIX = "dealerpoker-record-v1:";
const UNDIGESTED = new Set(["record_digest", "signature"]);

function bytesOfHex(text) {
  if (typeof text !== "string" || !/^([0-9a-fA-F]{2})*$/.test(text)) throw keyedError("fair.check.not_hex", "not hexadecimal");
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

async function sha256Hex(text) {
  const digest = new Uint8Array(await subtle().digest("SHA-256", new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The canonical JSON the server hashes (Python's json.dumps(sort_keys=True, separators=(",", ":"),
 * ensure_ascii=True)): keys sorted, no spaces, every character outside printable ASCII as \uXXXX.
 */
export function canonicalJson(value) {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined).sort();
    return `{${keys.map((key) => `${ascii(JSON.stringify(key))}:${canonicalJson(value[key])}`).join(",")}}`;
  }
  if (typeof value === "number" && !Number.isFinite(value)) throw new Error("NaN or Infinity is not JSON");
  return ascii(JSON.stringify(value));
}

function ascii(json) {
  return json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** SHA-256 hex of the canonical JSON of a record without its digest and signature. */
export async function recordDigest(record) {
  const content = Object.fromEntries(Object.entries(record).filter(([key]) => !UNDIGESTED.has(key)));
  return sha256Hex(canonicalJson(content));
}

/** The full fingerprint of a rules document: SHA-256 of its canonical JSON. */
export async function rulesSha256(document) {
  return sha256Hex(canonicalJson(document));
}

/**
 * Check a record against the deployment: `key` is GET /api/fairness/public-key's body,
 * `published` GET /api/rules/{fingerprint}'s (or null when not published). Returns the checks
 * [{subject, ok, key, params}] (`key` and `params`: the catalogue's text of the result).
 */
export async function checkSigned(record, key, published) {
  const checks = [];
  const add = (subject, ok, text, params = {}) => checks.push({ subject, ok, key: text, params });
  const digest = await recordDigest(record);
  add("record digest", digest === record.record_digest, digest === record.record_digest
    ? "fair.check.digest_ok" : "fair.check.digest_bad", { digest, recorded: record.record_digest });
  add("signature", ...await signatureCheck(record.signature, digest, key));
  const rules = await rulesSha256(record.rules ?? null);
  const cited = String(record.rules_fingerprint ?? "");
  const matches = cited === rules || (cited.length === 16 && rules.startsWith(cited));
  add("rules fingerprint", matches, matches ? "fair.check.fingerprint_ok" : "fair.check.fingerprint_bad",
    { rules, cited });
  const approved = published?.document ? await rulesSha256(published.document) === rules : false;
  add("published rules", approved, approved ? "fair.check.published_ok" : "fair.check.published_bad");
  return checks;
}

/** [ok, key, params] of the record's signature under the server's published key. */
async function signatureCheck(signature, digest, key) {
  if (!signature || signature.algorithm !== "ed25519") return [false, "fair.check.not_signed"];
  if (signature.key_id !== key?.key_id) {
    return [false, "fair.check.other_key", { key_id: signature.key_id, published: key?.key_id }];
  }
  let publicKey;
  try {
    publicKey = await subtle().importKey("raw", bytesOfHex(key.public_key), { name: "Ed25519" }, false, ["verify"]);
  } catch (error) {
    return [false, "fair.check.no_ed25519", { error: error.message }];
  }
  let valid = false;
  try {
    valid = await subtle().verify({ name: "Ed25519" }, publicKey, bytesOfHex(signature.value),
      new TextEncoder().encode(PREFIX + digest));
  } catch {
    valid = false;
  }
  return valid ? [true, "fair.check.signature_ok", { key_id: key.key_id }] : [false, "fair.check.signature_bad"];
}
