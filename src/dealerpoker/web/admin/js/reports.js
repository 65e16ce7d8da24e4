// Reports: per day, ISO week or month, per game, table, currency and operator (embedded: the demo
// players): rounds, players, staked,
// returned, gross gaming revenue, hold, the measured RTP beside the exact RTP and its range
// (rows outside it flagged), a CSV download and a chart of daily revenue and hold.

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cell, field, money, percent, table } from "./format.js";
import { get, query } from "./http.js";
import { errorText } from "./state.js";

const PERIOD_NAMES = { day: "admin.reports.day", week: "admin.reports.week", month: "admin.reports.month" };
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  return el;
}

/** Daily revenue (bars, minor units of one currency) and hold (line), drawn in SVG. */
function chart(rows, currency) {
  const days = new Map();
  for (const row of rows.filter((r) => r.currency === currency)) {
    const day = days.get(row.period) ?? { ggr: 0, staked: 0 };
    day.ggr += row.ggr;
    day.staked += row.staked;
    days.set(row.period, day);
  }
  const entries = [...days.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = 800;
  const height = 220;
  const top = Math.max(1, ...entries.map(([, d]) => Math.abs(d.ggr)));
  const step = width / Math.max(1, entries.length);
  const drawing = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": t("admin.reports.chart", { currency }) });
  drawing.append(svg("line", { x1: 0, x2: width, y1: height / 2, y2: height / 2, stroke: "#999" }));
  const points = [];
  entries.forEach(([day, d], index) => {
    const size = (Math.abs(d.ggr) / top) * (height / 2 - 10);
    const bar = svg("rect", { x: index * step + 2, width: Math.max(1, step - 4), height: size,
      y: d.ggr >= 0 ? height / 2 - size : height / 2, fill: d.ggr >= 0 ? "#1b7a3a" : "#b3261e" });
    const title = svg("title", {});
    title.textContent = `${day}: ${money(d.ggr, currency)}, ${percent(d.staked ? d.ggr / d.staked : 0)}`;
    bar.append(title);
    drawing.append(bar);
    const hold = d.staked ? d.ggr / d.staked : 0;
    points.push(`${index * step + step / 2},${height / 2 - hold * (height / 2 - 10) * 2}`);
  });
  if (points.length > 1) drawing.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: "#1f5fbf", "stroke-width": 2 }));
  return drawing;
}

export async function reportsPage(container) {
  const today = new Date();
  const ago = new Date(today.getTime() - 30 * 86400000);
  const inputs = {
    since: h("input", { name: "since", type: "date", value: ago.toISOString().slice(0, 10) }),
    until: h("input", { name: "until", type: "date", value: new Date(today.getTime() + 86400000).toISOString().slice(0, 10) }),
    period: h("select", { name: "period" }, ...Object.entries(PERIOD_NAMES).map(([value, key]) => h("option", { value }, t(key)))),
    game: h("select", { name: "game" }, h("option", { value: "" }, t("admin.any")),
      h("option", { value: "texas-bonus" }, t("game.texas-bonus")),
      h("option", { value: "casino-holdem" }, t("game.casino-holdem"))),
    table: h("input", { name: "table", placeholder: "solo" }),
    currency: h("input", { name: "currency", size: 5 }),
    operator: h("input", { name: "operator", placeholder: "embedded" }),
  };
  const results = h("div.results");
  const download = h("a.btn.secondary.csv", { href: "#", download: "" }, t("admin.reports.csv"));

  async function load() {
    const params = Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, input.value]));
    download.href = `/admin/api/reports${query({ ...params, format: "csv" })}`;
    try {
      const { rows } = await get(`/reports${query(params)}`);
      if (!rows.length) {
        results.replaceChildren(h("p", {}, t("admin.reports.none")));
        return;
      }
      const currencies = [...new Set(rows.map((r) => r.currency))];
      results.replaceChildren(
        table([t("admin.reports.period"), t("admin.rounds.game"), t("admin.rounds.table"), t("admin.reports.currency"),
          t("admin.rounds.operator"), t("admin.reports.rounds"), t("admin.reports.players"), t("admin.rounds.staked"), t("admin.rounds.returned"),
          t("admin.reports.ggr"), t("admin.reports.hold"), t("admin.reports.measured_rtp"), t("admin.reports.exact_rtp"),
          t("admin.reports.range"), t("admin.reports.flag")],
        rows.map((r) => h(`tr${r.flagged ? ".flagged" : ""}`, {}, cell(r.period), cell(r.game), cell(r.table),
          cell(r.currency), cell(r.operator), cell(r.rounds, "num"), cell(r.players, "num"), cell(money(r.staked, r.currency), "num"),
          cell(money(r.returned, r.currency), "num"), cell(money(r.ggr, r.currency), "num"), cell(percent(r.hold), "num"),
          cell(percent(r.measured_rtp, 3), "num"), cell(percent(r.exact_rtp, 3), "num"),
          cell(r.range_low === null ? "" : `${percent(r.range_low, 3)} – ${percent(r.range_high, 3)}`, "num"),
          cell(r.flagged ? t("admin.reports.flagged") : "")))),
        ...(inputs.period.value === "day" ? currencies.map((code) =>
          h("figure", {}, chart(rows, code), h("figcaption", {}, t("admin.reports.chart", { currency: code })))) : []));
    } catch (error) {
      results.replaceChildren(h("p.message", { role: "alert" }, errorText(error)));
    }
  }
  container.append(h("h2", {}, t("admin.nav.reports")),
    h("form.filters", { onsubmit: (event) => { event.preventDefault(); load(); } },
      field(t("admin.rounds.since"), inputs.since), field(t("admin.rounds.until"), inputs.until),
      field(t("admin.reports.period"), inputs.period), field(t("admin.rounds.game"), inputs.game),
      field(t("admin.rounds.table"), inputs.table), field(t("admin.reports.currency"), inputs.currency),
      field(t("admin.rounds.operator"), inputs.operator),
      h("button.btn", { type: "submit" }, t("admin.reports.show")), download),
    h("p", {}, t("admin.reports.explain")), results);
  await load();
}
