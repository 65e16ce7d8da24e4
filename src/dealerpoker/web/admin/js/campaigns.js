// Free-bet campaigns (docs/backoffice.md#free-bets): every operator's campaigns, what each costs
// (the expected payout of a free ante under optimal play, from the exact analysis, times its
// rounds) and their use so far. The operators create and grant them (docs/operators.md#free-bets).

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { money, table } from "./format.js";
import { get } from "./http.js";

const cell = (text, className = "") => h(`td${className ? `.${className}` : ""}`, {}, text ?? "");

/** An exact cost in minor units, rounded to the minor unit for display (the exact value as a title). */
function cost(amount, currency) {
  return h("span", { title: `${amount.exact} (${t("admin.campaigns.exact")})` }, money(Math.round(amount.value), currency));
}

function costLines(campaign) {
  return Object.entries(campaign.cost).flatMap(([game, byCurrency]) => Object.entries(byCurrency)
    .filter(([currency]) => currency !== "house_edge")
    .map(([currency, figures]) => h("li", { dataset: { game, currency } },
      `${t(`game.${game}`)}: `, t("admin.campaigns.per_round"), " ", cost(figures.per_round, currency), "; ",
      t("admin.campaigns.granted"), " ", cost(figures.granted, currency), "; ",
      t("admin.campaigns.played"), " ", cost(figures.played, currency))));
}

function useLines(campaign) {
  return Object.entries(campaign.use).map(([currency, u]) => h("li", { dataset: { currency } },
    t("admin.campaigns.use_line", { rounds: u.rounds, free_ante: money(u.free_ante, currency),
      staked: money(u.staked, currency), returned: money(u.returned, currency), net: money(u.net, currency) })));
}

export async function campaignsPage(container) {
  const { campaigns } = await get("/campaigns");
  container.append(h("h2", {}, t("admin.nav.campaigns")), h("p", {}, t("admin.campaigns.explain")),
    campaigns.length === 0 ? h("p", {}, t("admin.campaigns.none")) : table(
      [t("admin.campaigns.campaign"), t("admin.rounds.operator"), t("admin.campaigns.games"),
        t("admin.campaigns.ante"), t("admin.campaigns.rounds"), t("admin.campaigns.valid"),
        t("admin.campaigns.status"), t("admin.campaigns.players"), t("admin.campaigns.cost"),
        t("admin.campaigns.use")],
      campaigns.map((c) => h("tr.campaign", { dataset: { id: c.id } },
        cell(`${c.name ?? c.external_id} (${c.external_id}, ${c.id})`), cell(c.operator),
        cell(c.games.map((game) => t(`game.${game}`)).join(", ")),
        cell(Object.entries(c.ante).map(([code, ante]) => money(ante, code)).join(", ")),
        cell(`${c.rounds_used} / ${c.players * c.rounds}`, "num"),
        cell(`${c.valid_from} – ${c.valid_until}`), cell(c.status), cell(c.players, "num"),
        h("td.cost", {}, h("ul", {}, ...costLines(c))), h("td.use", {}, h("ul", {}, ...useLines(c)))))));
}
