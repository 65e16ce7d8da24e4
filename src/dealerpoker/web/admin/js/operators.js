// Operators: each casino's settings (never its secret) and its seamless wallet's health over the
// last hours: calls by outcome (ok, refused, error, timeout) with their rates and latencies, the
// rollback rate, retries, and what is owed now (wins and rollbacks the outbox still delivers).

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cell, field, money, percent, table } from "./format.js";
import { get, query } from "./http.js";
import { errorText } from "./state.js";

const WINDOWS = [1, 24, 168];

function ms(value) {
  return value === null || value === undefined ? "—" : t("admin.operators.ms", { ms: value });
}

function settingsList(settings) {
  const chips = Object.entries(settings.chips).map(([code, values]) =>
    `${code}: ${values.map((value) => money(value, code)).join(", ")}`).join("; ");
  const limits = Object.entries(settings.limits).map(([code, fields]) => `${code}: ${Object.entries(fields)
    .map(([name, bounds]) => `${name} ${money(bounds.min, code)}–${money(bounds.max, code)}`).join(", ")}`).join("; ");
  const rows = [
    ["admin.operators.wallet_url", settings.wallet_url],
    ["admin.operators.currencies", settings.currencies.join(", ")],
    ["admin.operators.timeout", t("admin.operators.seconds", { seconds: settings.wallet_timeout_seconds })],
    ["admin.operators.signature", settings.signature],
    ["admin.operators.chips", chips || "—"],
    ["admin.operators.limits", limits || "—"],
    ["admin.operators.jurisdictions", settings.jurisdictions.join(", ") || "—"],
    ["admin.operators.frame_ancestors", settings.frame_ancestors.join(", ") || "—"],
  ];
  return h("dl.settings", {}, ...rows.flatMap(([key, value]) => [h("dt", {}, t(key)), h("dd", {}, value)]));
}

function callsTable(health) {
  const line = (name, c, className = "") => h(`tr${className}`, { dataset: { call: name } }, cell(name), cell(c.calls ?? c.total, "num"),
    cell(c.ok, "num"), cell(c.refused, "num"), cell(c.error, "num"), cell(c.timeout, "num"),
    cell(ms(c.median_ms), "num"), cell(ms(c.p95_ms), "num"), cell(ms(c.max_ms), "num"));
  const grid = table([t("admin.operators.call"), t("admin.operators.calls"), t("admin.operators.ok"),
    t("admin.operators.refused"), t("admin.operators.errors"), t("admin.operators.timeouts"),
    t("admin.operators.median"), t("admin.operators.p95"), t("admin.operators.slowest")],
  Object.entries(health.calls.by_kind).sort(([a], [b]) => a.localeCompare(b)).map(([name, c]) => line(name, c)));
  grid.append(h("tfoot", {}, line(t("admin.reports.total"), health.calls, ".total")));
  return grid;
}

function rates(health) {
  const rate = (value) => (value === null ? "—" : percent(value, 2));
  const r = health.rates;
  const owed = Object.entries(health.owed).map(([kind, o]) =>
    t("admin.operators.owed_kind", { kind, count: o.count, oldest: o.oldest })).join("; ");
  return h("ul.rates", {},
    h(`li.error-rate${r.error ? ".bad" : ""}`, {}, t("admin.operators.error_rate", { rate: rate(r.error) })),
    h(`li.timeout-rate${r.timeout ? ".bad" : ""}`, {}, t("admin.operators.timeout_rate", { rate: rate(r.timeout) })),
    h("li.refused-rate", {}, t("admin.operators.refused_rate", { rate: rate(r.refused) })),
    h(`li.rollback-rate${r.rollback ? ".bad" : ""}`, {}, t("admin.operators.rollback_rate", { rate: rate(r.rollback),
      rollbacks: health.transactions.rollbacks, bets: health.transactions.bets })),
    h("li.retries", {}, t("admin.operators.retries", { retries: health.transactions.retries })),
    h(`li.owed${owed ? ".bad" : ""}`, {}, owed ? t("admin.operators.owed", { owed }) : t("admin.operators.owed_none")));
}

export async function operatorsPage(container) {
  const hours = h("select", { name: "hours" }, ...WINDOWS.map((value) =>
    h("option", { value, selected: value === 24 }, t("admin.operators.last_hours", { hours: value }))));
  const results = h("div.results");
  async function load() {
    try {
      const found = await get(`/operators${query({ hours: hours.value })}`);
      results.replaceChildren(...(found.operators.length ? found.operators.map(({ settings, health }) =>
        h("section.card.operator", { dataset: { operator: settings.id } }, h("h3", {}, settings.id),
          settingsList(settings), h("h4", {}, t("admin.operators.health", { since: found.since, until: found.until })),
          rates(health), callsTable(health))) : [h("p", {}, t("admin.operators.none"))]));
    } catch (error) {
      results.replaceChildren(h("p.message", { role: "alert" }, errorText(error)));
    }
  }
  container.append(h("h2", {}, t("admin.nav.operators")),
    h("form.filters", { onsubmit: (event) => { event.preventDefault(); load(); } }, field(t("admin.operators.window"), hours),
      h("button.btn", { type: "submit" }, t("admin.reports.show"))),
    h("p", {}, t("admin.operators.explain")), results);
  await load();
}
