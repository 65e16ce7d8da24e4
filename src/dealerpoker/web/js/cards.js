// Drawing cards (CSS cards: rank, suit pip, red or black; a patterned back when face down).

import { has, t } from "./i18n.js";

const SUITS = { c: ["♣", "clubs"], d: ["♦", "diamonds"], h: ["♥", "hearts"], s: ["♠", "spades"] };
const RANKS = { T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const SUIT_NAMES = { c: "card.suit.clubs", d: "card.suit.diamonds", h: "card.suit.hearts", s: "card.suit.spades" };

/** "Ten of hearts", "Zehn Herz": a card's name for screen readers, in the page's language. */
export function cardLabel(text) {
  const [rank, suit] = [text.slice(0, -1), text.slice(-1)];
  const name = has(`rank.${rank}_one`) ? t(`rank.${rank}_one`) : rank;
  return t("card.label", { rank: name, suit: SUIT_NAMES[suit] ? t(SUIT_NAMES[suit]) : suit });
}

/** A face-up card for "As", "Td", ... or a face-down card when `text` is null. */
export function cardElement(text, { small = false } = {}) {
  const el = document.createElement("div");
  el.className = "card" + (small ? " card--small" : "");
  if (!text) {
    el.classList.add("card--back");
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", t("card.back"));
    el.dataset.card = "back";
    return el;
  }
  const rank = text.slice(0, -1);
  const suit = text.slice(-1);
  const [pip, suitName] = SUITS[suit] ?? ["?", suit];
  el.classList.add(suit === "d" || suit === "h" ? "card--red" : "card--black");
  el.dataset.card = text;
  el.setAttribute("role", "img");
  el.setAttribute("aria-label", cardLabel(text));
  el.title = cardLabel(text);
  const face = RANKS[rank] ?? rank;
  el.innerHTML =
    `<span class="card__corner">${face}<br>${pip}</span>` +
    `<span class="card__pip" aria-hidden="true">${pip}</span>` +
    `<span class="card__corner card__corner--bottom">${face}<br>${pip}</span>`;
  el.classList.add(`card--${suitName}`);
  return el;
}

/** `count` slots: the known cards face up, the rest face down (not yet revealed). */
export function fillCards(container, known, count, options) {
  const total = Math.max(count, known.length);
  // Only slots that changed are redrawn, so a card is dealt (animated) once, not on every render.
  for (let i = 0; i < total; i += 1) {
    const wanted = known[i] ?? null;
    const current = container.children[i];
    if (current && current.dataset.card === (wanted ?? "back")) continue;
    const card = cardElement(wanted, options);
    if (current) current.replaceWith(card);
    else container.append(card);
  }
  while (container.children.length > total) container.lastElementChild.remove();
}
