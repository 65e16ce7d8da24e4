// The "verify this deal" block of the replay view: runs fairness.js in the browser on the
// round's revealed seed and shows each check; with `signed` (an async function giving
// {record, key, published}: the round's record, GET /api/fairness/public-key and
// GET /api/rules/{fingerprint}) also the record's digest, the server's Ed25519 signature and the
// published rules (signature.js). The full audit (payouts, ledger) is the command
// `dealerpoker verify --round-file FILE --server URL` on GET /api/rounds/{id}/record.

import { h } from "./dom.js";
import { checkRound } from "./fairness.js";
import { checkSigned } from "./signature.js";

/** What `fairnessCheck`'s `signed` option fetches, through the page's API client. */
export function signedLoader(api, recordOrPath) {
  return async () => {
    const record = typeof recordOrPath === "string" ? await api.call("GET", recordOrPath) : recordOrPath;
    const key = await api.call("GET", "/api/fairness/public-key");
    let published = null;
    try {
      published = await api.call("GET", `/api/rules/${encodeURIComponent(record.rules_fingerprint)}`);
    } catch {
      published = null; // not published: the check says so
    }
    return { record, key, published };
  };
}

export function fairnessCheck(round, { signed = null } = {}) {
  const fairness = round.fairness;
  if (!fairness?.commitment) return null;
  const result = h("div.fair__result", { "aria-live": "polite", dataset: { verifyResult: round.id } });
  const revealed = Boolean(fairness.server_seed);
  const button = h("button.btn.btn--small", {
    type: "button",
    dataset: { verify: round.id },
    disabled: !revealed,
    onclick: async () => {
      button.disabled = true;
      result.replaceChildren(h("p", {}, "Checking…"));
      try {
        const { checks } = await checkRound(round);
        if (signed) {
          const { record, key, published } = await signed();
          checks.push(...await checkSigned(record, key, published));
        }
        const ok = checks.every((check) => check.ok);
        result.dataset.ok = String(ok);
        result.replaceChildren(
          h("p.fair__verdict", {}, ok ? "✔ VERIFIED: this deal was fixed before your bets" : "✘ NOT VERIFIED"),
          h("ul.fair__checks", {}, checks.map((check) => h("li", { dataset: { ok: String(check.ok) } },
            `${check.ok ? "✔" : "✘"} ${check.subject}: ${check.message}`))));
      } catch (error) {
        result.dataset.ok = "false";
        result.replaceChildren(h("p.fair__verdict", {}, `✘ could not check: ${error.message}`));
      } finally {
        button.disabled = false;
      }
    },
  }, "VERIFY THIS DEAL");
  return h("div.replay__fair", {},
    h("p", {}, `Commitment: ${fairness.commitment}`),
    h("p", {}, revealed
      ? `Server seed: ${fairness.server_seed} · client seed: ${fairness.client_seed} · nonce: ${fairness.nonce}`
      : "The server seed is revealed once the round is settled."),
    button,
    result);
}

/**
 * The table's fairness line: before a bet, the commitment of the player's next deal
 * (GET /api/fairness); during a round, that round's commitment. `line.show(round)` updates it.
 */
export function nextDealLine(api) {
  const line = h("p.fair-next", { id: "next-commitment", "aria-live": "polite" });
  let shownFor = null;
  const display = (label, commitment, detail) => {
    line.dataset.commitment = commitment;
    line.title = `SHA-256 commitment: ${commitment}`;
    line.textContent = `${label}: SHA-256 ${commitment.slice(0, 16)}…${detail}`;
  };
  line.show = async (round) => {
    if (round?.status === "open" && round.fairness?.commitment) {
      shownFor = null;
      const f = round.fairness;
      display("This deal is committed", f.commitment, ` · client seed "${f.client_seed}" · nonce ${f.nonce}`);
      return;
    }
    const key = round ? `${round.id}:${round.status}` : "no round";
    if (key === shownFor) return;
    shownFor = key;
    try {
      const info = await api.call("GET", "/api/fairness");
      display("Your next deal is committed", info.next_commitment,
        ` · client seed "${info.client_seed}" · nonce ${info.next_nonce}`);
    } catch {
      shownFor = null; // try again on the next render
    }
  };
  return line;
}
