// A round record's binding to the deployment, checked in the browser (docs/fairness.md, "Records
// bound to the deployment"): the record's digest recomputed from its content, the server's Ed25519
// signature of it under the published public key (WebCrypto's Ed25519: Chromium 137+, Firefox 129+,
// Safari 17+, Node 20), and its rules document against its fingerprint and the published document.
// Pure: no DOM, no network; the caller fetches the record, the key and the published rules.

const PREFIX = "dealerpoker-record-v1:";
const UNDIGESTED = new Set(["record_digest", "signature"]);

function subtle() {
  const found = globalThis.crypto?.subtle;
  if (!found) throw new Error("WebCrypto is not available here (the page needs https or localhost)");
  return found;
}

function bytesOfHex(text) {
  if (typeof text !== "string" || !/^([0-9a-fA-F]{2})*$/.test(text)) throw new Error("not hexadecimal");
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
 * [{subject, ok, message}].
 */
export async function checkSigned(record, key, published) {
  const checks = [];
  const add = (subject, ok, message) => checks.push({ subject, ok, message });
  const digest = await recordDigest(record);
  add("record digest", digest === record.record_digest, digest === record.record_digest
    ? "the record's content hashes to its digest"
    : `the content hashes to ${digest}, the record says ${record.record_digest}`);
  add("signature", ...await signatureCheck(record.signature, digest, key));
  const rules = await rulesSha256(record.rules ?? null);
  const cited = String(record.rules_fingerprint ?? "");
  const matches = cited === rules || (cited.length === 16 && rules.startsWith(cited));
  add("rules fingerprint", matches, matches ? "the rules document hashes to the fingerprint the record cites"
    : `the rules hash to ${rules}, the record cites ${cited}`);
  const approved = published?.document ? await rulesSha256(published.document) === rules : false;
  add("published rules", approved, approved ? "the rules are the ones the server publishes (GET /api/rules)"
    : "the record's rules are not the published document under its fingerprint");
  return checks;
}

async function signatureCheck(signature, digest, key) {
  if (!signature || signature.algorithm !== "ed25519") return [false, "the record is not signed with Ed25519"];
  if (signature.key_id !== key?.key_id) {
    return [false, `signed with key ${signature.key_id}, the server publishes ${key?.key_id}`];
  }
  let publicKey;
  try {
    publicKey = await subtle().importKey("raw", bytesOfHex(key.public_key), { name: "Ed25519" }, false, ["verify"]);
  } catch (error) {
    return [false, `this browser cannot check Ed25519 signatures (${error.message}): use dealerpoker verify --server`];
  }
  let valid = false;
  try {
    valid = await subtle().verify({ name: "Ed25519" }, publicKey, bytesOfHex(signature.value),
      new TextEncoder().encode(PREFIX + digest));
  } catch {
    valid = false;
  }
  return valid ? [true, `signed by the server's key ${key.key_id} over this content`]
    : [false, "the signature does not match this content under the server's key"];
}
