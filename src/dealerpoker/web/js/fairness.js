// Provably fair deals, checked in the browser: the algorithm hmac-sha256-fy-v1, byte for byte the
// same as the server's Python (dealerpoker.fairness.shuffle; docs/fairness.md has the specification).
// Pure: no DOM, no network. WebCrypto (crypto.subtle) computes SHA-256 and HMAC-SHA256, so this
// runs in any secure context (https or localhost) and in Node 20.
//
// No language either: each check names its result by a catalogue key and its parameters
// (web/i18n/*.json, "fair.check."), which the page renders in the player's language (verify.js);
// an error thrown for bad input carries its key beside an English message for developers.

export const ALGORITHM_VERSION = "hmac-sha256-fy-v1";
const RANKS = "23456789TJQKA";
const SUITS = "cdhs";
const WORD_SPAN = 2 ** 32;

/** An Error with the catalogue key of its text (`error.key`). */
export function keyedError(key, message) {
  return Object.assign(new Error(message), { key });
}

export function subtle() {
  const found = globalThis.crypto?.subtle;
  if (!found) throw keyedError("fair.check.no_webcrypto", "WebCrypto is not available here (the page needs https or localhost)");
  return found;
}

/** The 32 bytes of a 64-hex-character server seed (either case). */
export function seedBytes(seedHex) {
  if (typeof seedHex !== "string" || !/^[0-9a-fA-F]{64}$/.test(seedHex)) {
    throw keyedError("fair.check.bad_server_seed", "server seed must be exactly 64 hexadecimal characters (32 bytes)");
  }
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) bytes[i] = parseInt(seedHex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function checkClientSeed(clientSeed) {
  if (typeof clientSeed !== "string" || clientSeed.length < 1 || clientSeed.length > 128
      || !/^[\x20-\x7e]+$/.test(clientSeed)) {
    throw keyedError("fair.check.bad_client_seed", "client seed must be 1 to 128 printable ASCII characters");
  }
}

function checkNonce(nonce) {
  if (!Number.isSafeInteger(nonce) || nonce < 0) {
    throw keyedError("fair.check.bad_nonce", "nonce must be an integer from 0 to 2**53 - 1");
  }
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 (lowercase hex) of the seed's 32 bytes: the commitment published before the bets. */
export async function commitmentOf(seedHex) {
  return hex(await subtle().digest("SHA-256", seedBytes(seedHex)));
}

/** The 52 card indices (rank * 4 + suit) in dealing order. */
export async function deckOrder(seedHex, clientSeed, nonce) {
  checkClientSeed(clientSeed);
  checkNonce(nonce);
  const key = await subtle().importKey("raw", seedBytes(seedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const encoder = new TextEncoder();
  let counter = 0;
  let words = [];
  let position = 0;
  const nextWord = async () => {
    if (position >= words.length) {
      const message = encoder.encode(`${clientSeed}:${nonce}:${counter}`);
      const block = new DataView(await subtle().sign("HMAC", key, message));
      counter += 1;
      words = Array.from({ length: 8 }, (_, k) => block.getUint32(4 * k, false)); // big-endian
      position = 0;
    }
    const word = words[position];
    position += 1;
    return word;
  };
  const deck = Array.from({ length: 52 }, (_, i) => i);
  for (let i = 0; i < 51; i += 1) {
    const n = 52 - i;
    const limit = WORD_SPAN - (WORD_SPAN % n); // words at or above it would bias the draw
    let word = await nextWord();
    while (word >= limit) word = await nextWord();
    const j = i + (word % n);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return deck;
}

/** "As" for 51, "2c" for 0. */
export function cardName(index) {
  return RANKS[index >> 2] + SUITS[index & 3];
}

/**
 * Check a settled round's view (or record) in the browser: the revealed seed against the
 * commitment, and every card shown against the deck the seeds give. Payouts are re-settled by
 * `dealerpoker verify --round-file` (the rules engine is on the server side only).
 * Returns {ok, checks: [{subject, ok, key, params}], cards}: `subject` names what was checked
 * ("commitment", "player cards", "flop reveal"...), `key` and `params` the catalogue's text of the result.
 */
export async function checkRound(round) {
  const fairness = round.fairness ?? {};
  const checks = [];
  const add = (subject, ok, key, params = {}) => checks.push({ subject, ok, key, params });
  if ((fairness.algorithm ?? ALGORITHM_VERSION) !== ALGORITHM_VERSION) {
    add("algorithm", false, "fair.check.algorithm", { expected: ALGORITHM_VERSION, algorithm: fairness.algorithm });
    return { ok: false, checks, cards: null };
  }
  if (!fairness.server_seed) {
    add("server seed", false, "fair.check.seed_not_revealed");
    return { ok: false, checks, cards: null };
  }
  let deck;
  try {
    const commitment = await commitmentOf(fairness.server_seed);
    const committed = String(fairness.commitment ?? "").toLowerCase();
    add("commitment", commitment === committed, commitment === committed ? "fair.check.commitment_ok"
      : "fair.check.commitment_bad", { computed: commitment, commitment: fairness.commitment });
    deck = await deckOrder(fairness.server_seed, fairness.client_seed, fairness.nonce);
  } catch (error) {
    add("seeds", false, error.key ?? "fair.check.error", { error: error.message });
    return { ok: false, checks, cards: null };
  }
  const cards = deck.map(cardName);
  if (Array.isArray(round.deck)) {
    const same = round.deck.length === 52 && round.deck.every((c, k) => c === deck[k]);
    add("deck", same, same ? "fair.check.deck_ok" : "fair.check.deck_bad");
  }
  const dealt = round.dealt ?? { player: round.player_cards, dealer: round.dealer_cards, board: round.board };
  const places = { player: [0, 2], dealer: [2, 4], board: [4, 9] };
  for (const [place, [from, to]] of Object.entries(places)) {
    const shown = dealt[place] ?? [];
    const expected = cards.slice(from, to);
    const bad = shown.findIndex((card, k) => card !== expected[k]);
    add(`${place} cards`, bad < 0 && shown.length <= expected.length, bad >= 0 ? "fair.check.card_bad"
      : shown.length ? "fair.check.cards_ok" : "fair.check.none_shown",
    { cards: shown.join(" "), position: bad + 1, shown: shown[bad], expected: expected[bad] });
  }
  if (Array.isArray(round.reveals)) checkReveals(round.reveals, cards, add);
  return { ok: checks.every((c) => c.ok), checks, cards };
}

// A live round's reveals: the cards first shown at each decision point and at the showdown
// (player deck[0:2], dealer deck[2:4], board deck[4:9]; dealerpoker.fairness.live_record).
const VISIBLE = { preflop: [2, 0, 0], flop: [2, 3, 0], turn: [2, 4, 0], showdown: [2, 5, 2] };
const PLACES = [["player", 0], ["board", 4], ["dealer", 2]];

function checkReveals(reveals, cards, add) {
  let shown = [0, 0, 0];
  reveals.forEach((reveal, k) => {
    const visible = VISIBLE[reveal?.event];
    if (!visible) {
      add(`reveal ${k + 1}`, false, "fair.check.unknown_reveal", { number: k + 1, event: JSON.stringify(reveal?.event) });
      return;
    }
    const expected = {};
    PLACES.forEach(([place, start], i) => {
      if (visible[i] > shown[i]) expected[place] = cards.slice(start + shown[i], start + visible[i]);
    });
    shown = shown.map((before, i) => Math.max(before, visible[i]));
    const got = reveal.cards ?? {};
    const places = new Set([...Object.keys(expected), ...Object.keys(got)]);
    const same = [...places].every((place) => JSON.stringify(got[place] ?? []) === JSON.stringify(expected[place] ?? []));
    const text = (byPlace) => Object.values(byPlace).flat().join(" ") || "—";
    add(`${reveal.event} reveal`, same, same ? "fair.check.cards_ok" : "fair.check.reveal_bad",
      { reveal: reveal.event, cards: text(expected), shown: text(got), expected: text(expected) });
  });
}
