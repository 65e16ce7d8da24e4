// The hand-ranking table of the rules panel (both rule pages list it), highest first: each
// category's name (the catalogue's, as the server's hand names use), what it is, and a sample hand.
// A browser test evaluates every sample with the server's evaluator.

import { cardElement } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const RANKING = [
  ["royal-flush", "Ac Kc Qc Jc Tc"],
  ["straight-flush", "5d 4d 3d 2d Ad"],
  ["four-of-a-kind", "Tc Td Th Ts 5d"],
  ["full-house", "Ks Kc Kh 3d 3s"],
  ["flush", "Ah Qh Th 5h 3h"],
  ["straight", "9c 8d 7h 6s 5c"],
  ["three-of-a-kind", "2d 2s 2h Ks 6s"],
  ["two-pair", "Jd Js Ts Tc 9s"],
  ["one-pair", "2c 2s 8c 5h 3h"],
  ["high-card", "Ac Qc 7d 5h 2c"],
];

const DESCRIPTIONS = {
  "royal-flush": "ranking.royal-flush",
  "straight-flush": "ranking.straight-flush",
  "four-of-a-kind": "ranking.four-of-a-kind",
  "full-house": "ranking.full-house",
  flush: "ranking.flush",
  straight: "ranking.straight",
  "three-of-a-kind": "ranking.three-of-a-kind",
  "two-pair": "ranking.two-pair",
  "one-pair": "ranking.one-pair",
  "high-card": "ranking.high-card",
};

export function handRanking() {
  return h("section.ranking", { id: "hand-ranking" },
    h("h3", {}, t("ranking.title")),
    h("p.ranking__note", {}, t("ranking.note")),
    h("table.ranking__table", {},
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("ranking.hand")),
        h("th", { scope: "col" }, t("ranking.description")),
        h("th", { scope: "col" }, t("ranking.sample")))),
      h("tbody", {}, RANKING.map(([slug, sample]) => h("tr", { dataset: { category: slug } },
        h("th", { scope: "row" }, t(`category.${slug}`)),
        h("td", {}, t(DESCRIPTIONS[slug])),
        h("td", {}, h("span.cards.cards--small.ranking__sample", { dataset: { sample } },
          sample.split(" ").map((card) => cardElement(card, { small: true })))))))));
}
