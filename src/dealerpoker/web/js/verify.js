// The "verify this deal" block of the replay view: runs fairness.js in the browser on the
// round's revealed seed and shows each check; with `signed` (an async function giving
// {record, key, published}: the round's record, GET /api/fairness/public-key and
// GET /api/rules/{fingerprint}) also the record's digest, the server's Ed25519 signature and the
// published rules (signature.js). The full audit (payouts, ledger) is the command
// `dealerpoker verify --round-file FILE --server URL` on GET /api/rounds/{id}/record.

import { h } from "./dom.js";
import { checkRound } from "./fairness.js";
import { has, t } from "./i18n.js";
import { errorText } from "./locale.js";
import { checkSigned } from "./signature.js";

// What each check is about (fairness.js and signature.js name it in English), in the page's language.
const SUBJECTS = {
  algorithm: "fair.subject.algorithm", "server seed": "fair.subject.server_seed", commitment: "fair.subject.commitment",
  seeds: "fair.subject.seeds", deck: "fair.subject.deck", "player cards": "fair.subject.player_cards",
  "dealer cards": "fair.subject.dealer_cards", "board cards": "fair.subject.board_cards",
  "record digest": "fair.subject.record_digest", signature: "fair.subject.signature",
  "rules fingerprint": "fair.subject.rules_fingerprint", "published rules": "fair.subject.published_rules",
};
const REVEALS = { preflop: "fair.reveal.preflop", flop: "fair.reveal.flop", turn: "fair.reveal.turn",
  showdown: "fair.reveal.showdown" };

/** One check's line: "✔ signature: signed by the server's key k1 over this content". */
export function checkLine(check) {
  const params = check.params ?? {};
  const subject = SUBJECTS[check.subject] ? t(SUBJECTS[check.subject])
    : REVEALS[params.reveal] ? t(REVEALS[params.reveal])
      : params.number ? t("fair.subject.reveal", { number: params.number }) : check.subject;
  const text = check.key && has(check.key) ? t(check.key, params) : check.message ?? params.error ?? "";
  return `${check.ok ? "✔" : "✘"} ${subject}: ${text}`;
}

/** The text of an error the check met (the server refused a fetch, bad input): the catalogue's when it has one. */
function failure(error) {
  if (error?.key && has(error.key)) return t(error.key);
  if (error?.lostConnection) return t("page.connection_lost");
  return error?.payload ? errorText(error.payload, error.message) : error?.message ?? String(error);
}

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
      result.replaceChildren(h("p", {}, t("fair.checking")));
      try {
        const { checks } = await checkRound(round);
        if (signed) {
          const { record, key, published } = await signed();
          checks.push(...await checkSigned(record, key, published));
        }
        const ok = checks.every((check) => check.ok);
        result.dataset.ok = String(ok);
        result.replaceChildren(
          h("p.fair__verdict", {}, ok ? t("fair.verified") : t("fair.not_verified")),
          h("ul.fair__checks", {}, checks.map((check) => h("li", { dataset: { ok: String(check.ok) } },
            checkLine(check)))));
      } catch (error) {
        result.dataset.ok = "false";
        result.replaceChildren(h("p.fair__verdict", {}, t("fair.could_not_check", { error: failure(error) })));
      } finally {
        button.disabled = false;
      }
    },
  }, t("fair.verify"));
  return h("div.replay__fair", {},
    h("p", {}, t("fair.commitment", { commitment: fairness.commitment })),
    h("p", {}, revealed
      ? t("fair.seeds", { server_seed: fairness.server_seed, client_seed: fairness.client_seed, nonce: fairness.nonce })
      : t("fair.seed_later")),
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
    line.title = t("fair.commitment", { commitment });
    line.textContent = `${label}: SHA-256 ${commitment.slice(0, 16)}…${detail}`;
  };
  line.show = async (round) => {
    if (round?.status === "open" && round.fairness?.commitment) {
      shownFor = null;
      const f = round.fairness;
      display(t("fair.this_deal"), f.commitment, ` · ${t("fair.seed_nonce", { client_seed: f.client_seed, nonce: f.nonce })}`);
      return;
    }
    const key = round ? `${round.id}:${round.status}` : "no round";
    if (key === shownFor) return;
    shownFor = key;
    try {
      const info = await api.call("GET", "/api/fairness");
      display(t("fair.next_deal"), info.next_commitment,
        ` · ${t("fair.seed_nonce", { client_seed: info.client_seed, nonce: info.next_nonce })}`);
    } catch {
      shownFor = null; // try again on the next render
    }
  };
  return line;
}
