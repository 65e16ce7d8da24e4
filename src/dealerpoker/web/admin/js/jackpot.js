// The progressive jackpot: the pool now, checked against its events (seeds + contributions -
// awards), the bet's exact return at the pool now and its break-even pool, and the pool's
// history, newest first, filtered by kind (GET /admin/api/jackpot).

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cell, money, percent, table } from "./format.js";
import { get, query } from "./http.js";

const KINDS = () => ({ award: t("admin.jackpot.kind_award"), contribution: t("admin.jackpot.kind_contribution"),
  seed: t("admin.jackpot.kind_seed") });

function figures(answer) {
  const currency = answer.currency;
  const exact = answer.return;
  const row = (label, value, text) => h("tr", {}, cell(label), cell(value, "num"), cell(text, "code"));
  return table([t("admin.jackpot.figure"), t("admin.jackpot.value"), t("admin.games.exact")], [
    row(t("admin.jackpot.pool"), money(answer.pool, currency), String(answer.pool)),
    row(t("admin.jackpot.return_at_pool"), percent(exact.at_pool.value, 4), exact.at_pool.exact),
    row(t("admin.jackpot.break_even"), money(Math.ceil(exact.break_even_pool.value), currency), exact.break_even_pool.exact),
    row(t("admin.jackpot.fixed_awards"), percent(exact.fixed_awards.value, 4), exact.fixed_awards.exact),
    row(t("admin.jackpot.long_run"), percent(exact.long_run.value, 4), exact.long_run.exact),
  ]);
}

function audit(answer) {
  const { seeds, contributions, awards, ok } = answer.audit;
  const currency = answer.currency;
  return h(`p.jackpot-audit.${ok ? "ok" : "failed"}`, { id: "jackpot-audit", role: ok ? "status" : "alert" },
    t(ok ? "admin.jackpot.audit_ok" : "admin.jackpot.audit_failed", {
      pool: money(answer.pool, currency), seeds: money(seeds, currency),
      contributions: money(contributions, currency), awards: money(awards, currency) }));
}

function events(answer) {
  const currency = answer.currency;
  return table([t("admin.jackpot.at"), t("admin.jackpot.kind"), t("admin.jackpot.round"), t("admin.jackpot.player"),
    t("admin.jackpot.amount"), t("admin.jackpot.paid"), t("admin.jackpot.pool_after")],
  answer.events.map((event) => h("tr", { dataset: { kind: event.kind } },
    cell(event.at), cell(KINDS()[event.kind] ?? event.kind),
    cell(event.round_id.includes(":") ? event.round_id
      : h("a", { href: `#/round/${encodeURIComponent(event.round_id)}` }, event.round_id)),
    cell(event.player_id ?? ""), cell(money(event.amount, currency), "num"),
    cell(event.player_amount === null ? "" : `${money(event.player_amount, event.player_currency)}${
      event.category ? ` (${t(`category.${event.category}`)})` : ""}`, "num"),
    cell(money(event.pool_after, currency), "num"))));
}

export async function jackpotPage(container) {
  const kind = h("select", { name: "kind" }, h("option", { value: "" }, t("admin.jackpot.every_kind")),
    ...Object.entries(KINDS()).map(([value, text]) => h("option", { value }, text)));
  const results = h("div.results");
  async function load() {
    const answer = await get(`/jackpot${query({ kind: kind.value, limit: 200 })}`);
    results.replaceChildren(audit(answer), figures(answer),
      h("h3", {}, t("admin.jackpot.history")), answer.events.length ? events(answer) : h("p", {}, t("admin.jackpot.empty")));
  }
  container.append(h("h2", {}, t("admin.nav.jackpot")),
    h("form.filters", { onsubmit: (event) => { event.preventDefault(); load(); } },
      kind, h("button.btn", { type: "submit" }, t("admin.search"))), results);
  await load();
}
