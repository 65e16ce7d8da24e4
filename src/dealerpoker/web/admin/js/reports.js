// Reports: per day, ISO week or month, per game, table, currency, operator (embedded: the demo
// players) and jurisdiction, or rolled up to one of them: rounds, players, staked, returned,
// gross gaming revenue, hold, the measured RTP beside the exact RTP and its range (rows outside
// it flagged), a CSV download and a chart of daily revenue and hold.

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

/** Daily revenue (bars, in the currency's units on the left axis) and hold (line, % on the right
 *  axis), drawn in SVG with both axes labelled and every day named below its bar. */
function chart(rows, currency) {
  const days = new Map();
  for (const row of rows.filter((r) => r.currency === currency)) {
    const day = days.get(row.period) ?? { ggr: 0, staked: 0 };
    day.ggr += row.ggr;
    day.staked += row.staked;
    days.set(row.period, day);
  }
  const entries = [...days.entries()].sort(([a], [b]) => a.localeCompare(b));
  const width = 860;
  const height = 260;
  const left = 110;   // room for the amounts
  const right = 60;   // room for the hold
  const bottom = 40;  // room for the days
  const plot = { x: left, y: 10, w: width - left - right, h: height - 10 - bottom };
  const middle = plot.y + plot.h / 2;
  const top = Math.max(1, ...entries.map(([, d]) => Math.abs(d.ggr)));
  const holdTop = Math.max(0.01, ...entries.map(([, d]) => Math.abs(d.staked ? d.ggr / d.staked : 0)));
  const step = plot.w / Math.max(1, entries.length);
  const drawing = svg("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, role: "img",
    "aria-label": t("admin.reports.chart", { currency }) });
  const label = (x, y, text, anchor, className) => {
    const node = svg("text", { x, y, "text-anchor": anchor, "font-size": 11, class: className });
    node.textContent = text;
    drawing.append(node);
    return node;
  };
  drawing.append(svg("line", { x1: plot.x, x2: plot.x + plot.w, y1: middle, y2: middle, stroke: "#999" }),
    svg("line", { x1: plot.x, x2: plot.x, y1: plot.y, y2: plot.y + plot.h, stroke: "#555" }),
    svg("line", { x1: plot.x + plot.w, x2: plot.x + plot.w, y1: plot.y, y2: plot.y + plot.h, stroke: "#1f5fbf" }));
  for (const share of [1, 0.5, 0, -0.5, -1]) {  // ticks: amounts (minor units shown in major) and hold
    const y = middle - share * (plot.h / 2);
    label(plot.x - 4, y + 4, money(Math.round(share * top), currency), "end", "axis-money");
    label(plot.x + plot.w + 4, y + 4, percent(share * holdTop, 1), "start", "axis-hold");
  }
  label(12, middle, t("admin.reports.axis_ggr", { currency }), "middle", "axis-title")
    .setAttribute("transform", `rotate(-90 12 ${middle})`);
  label(width - 8, middle, t("admin.reports.axis_hold"), "middle", "axis-title")
    .setAttribute("transform", `rotate(90 ${width - 8} ${middle})`);
  const points = [];
  const every = Math.max(1, Math.ceil(entries.length / 10));  // at most ten day labels
  entries.forEach(([day, d], index) => {
    const size = (Math.abs(d.ggr) / top) * (plot.h / 2);
    const x = plot.x + index * step;
    const bar = svg("rect", { x: x + 2, width: Math.max(1, step - 4), height: size,
      y: d.ggr >= 0 ? middle - size : middle, fill: d.ggr >= 0 ? "#1b7a3a" : "#b3261e" });
    const title = svg("title", {});
    title.textContent = `${day}: ${money(d.ggr, currency)}, ${percent(d.staked ? d.ggr / d.staked : 0)}`;
    bar.append(title);
    drawing.append(bar);
    if (index % every === 0) label(x + step / 2, plot.y + plot.h + 14, day.slice(5), "middle", "axis-day");
    const hold = d.staked ? d.ggr / d.staked : 0;
    points.push(`${x + step / 2},${middle - (hold / holdTop) * (plot.h / 2)}`);
  });
  label(plot.x + plot.w / 2, height - 4, t("admin.reports.axis_day"), "middle", "axis-title");
  if (points.length > 1) drawing.append(svg("polyline", { points: points.join(" "), fill: "none", stroke: "#1f5fbf", "stroke-width": 2 }));
  return drawing;
}

// What the rows may be rolled up to (the report's `group`): every dimension, or one of them.
const GROUP_NAMES = {
  all: "admin.reports.group_all", jurisdiction: "admin.reports.jurisdiction", operator: "admin.rounds.operator",
  game: "admin.rounds.game", table: "admin.rounds.table", currency: "admin.reports.currency",
};

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
    jurisdiction: h("input", { name: "jurisdiction", placeholder: "GB", size: 7 }),
    group: h("select", { name: "group" }, ...Object.entries(GROUP_NAMES).map(([value, key]) => h("option", { value }, t(key)))),
  };
  const results = h("div.results");
  const download = h("a.btn.secondary.csv", { href: "#", download: "" }, t("admin.reports.csv"));

  const headings = () => [t("admin.reports.period"), t("admin.rounds.game"), t("admin.rounds.table"),
    t("admin.reports.currency"), t("admin.rounds.operator"), t("admin.reports.jurisdiction"), t("admin.reports.rounds"),
    t("admin.reports.players"),
    t("admin.rounds.staked"), t("admin.rounds.returned"), t("admin.reports.ggr"), t("admin.reports.hold"),
    t("admin.reports.measured_rtp"), t("admin.reports.exact_rtp"), t("admin.reports.range"),
    t("admin.reports.misdeals"), t("admin.reports.flag")];
  const line = (r, className) => h(`tr${className}${r.flagged ? ".flagged" : ""}`, { dataset: { currency: r.currency } },
    cell(r.period === "total" ? t("admin.reports.total") : r.period), cell(r.game), cell(r.table),
    cell(r.currency), cell(r.operator), cell(r.jurisdiction), cell(r.rounds, "num"), cell(r.players, "num"), cell(money(r.staked, r.currency), "num"),
    cell(money(r.returned, r.currency), "num"), cell(money(r.ggr, r.currency), "num"), cell(percent(r.hold), "num"),
    cell(percent(r.measured_rtp, 3), "num"), cell(percent(r.exact_rtp, 3), "num"),
    cell(r.range_low === null ? "" : `${percent(r.range_low, 3)} – ${percent(r.range_high, 3)}`, "num"),
    cell(r.misdeals ? t("admin.reports.misdeal_count", { misdeals: r.misdeals, voided: money(r.voided, r.currency) }) : "", "num"),
    cell(r.flagged ? t("admin.reports.flagged") : ""));
  const openList = (list) => (list.length ? h("div.open-rounds", { role: "note" },
    h("p", {}, t("admin.reports.open_explain")),
    table([t("admin.rounds.game"), t("admin.rounds.table"), t("admin.reports.currency"), t("admin.rounds.operator"),
      t("admin.reports.open_rounds"), t("admin.reports.open_staked")],
    list.map((o) => h("tr.open", {}, cell(o.game), cell(o.table), cell(o.currency), cell(o.operator),
      cell(o.rounds, "num"), cell(money(o.staked, o.currency), "num"))))) : null);

  // Free rounds (operators' free bets): promotional money, apart from the figures above.
  const promoList = (list) => (list.length ? h("div.promotional", { role: "note" },
    h("h3", {}, t("admin.reports.promotional")), h("p", {}, t("admin.reports.promotional_explain")),
    table([t("admin.campaigns.campaign"), t("admin.rounds.operator"), t("admin.reports.currency"),
      t("admin.reports.rounds"), t("admin.reports.free_ante"), t("admin.rounds.staked"), t("admin.rounds.returned"),
      t("admin.reports.promo_net")],
    list.map((p) => h("tr.promo", { dataset: { campaign: p.campaign } }, cell(p.campaign_external_id), cell(p.operator),
      cell(p.currency), cell(p.rounds, "num"), cell(money(p.free_ante, p.currency), "num"),
      cell(money(p.staked, p.currency), "num"), cell(money(p.returned, p.currency), "num"),
      cell(money(p.net, p.currency), "num"))))) : null);

  async function load() {
    const params = Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, input.value]));
    download.href = `/admin/api/reports${query({ ...params, format: "csv" })}`;
    try {
      const { rows, totals, open_rounds: stillOpen, promotional } = await get(`/reports${query(params)}`);
      if (!rows.length) {
        results.replaceChildren(...[h("p", {}, t("admin.reports.none")), openList(stillOpen),
          promoList(promotional ?? [])].filter(Boolean));
        return;
      }
      const currencies = [...new Set(rows.map((r) => r.currency))];
      const grid = table(headings(), rows.map((r) => line(r, "")));
      grid.append(h("tfoot", {}, ...totals.map((r) => line(r, ".total"))));
      results.replaceChildren(...[grid, openList(stillOpen), promoList(promotional ?? []),
        ...(inputs.period.value === "day" ? currencies.map((code) =>
          h("figure", {}, chart(rows, code), h("figcaption", {}, t("admin.reports.chart", { currency: code })))) : [])]
        .filter(Boolean));
    } catch (error) {
      results.replaceChildren(h("p.message", { role: "alert" }, errorText(error)));
    }
  }
  container.append(h("h2", {}, t("admin.nav.reports")),
    h("form.filters", { onsubmit: (event) => { event.preventDefault(); load(); } },
      field(t("admin.rounds.since"), inputs.since), field(t("admin.rounds.until"), inputs.until),
      field(t("admin.reports.period"), inputs.period), field(t("admin.rounds.game"), inputs.game),
      field(t("admin.rounds.table"), inputs.table), field(t("admin.reports.currency"), inputs.currency),
      field(t("admin.rounds.operator"), inputs.operator), field(t("admin.reports.jurisdiction"), inputs.jurisdiction),
      field(t("admin.reports.group"), inputs.group),
      h("button.btn", { type: "submit" }, t("admin.reports.show")), download),
    h("p", {}, t("admin.reports.explain")), results);
  await load();
}
