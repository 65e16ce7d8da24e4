// The rules & paytable panel, the history panel and the step-by-step replay of a round.
// Everything shown comes from the server (GET /api/games, GET /api/rounds).

import { fillCards } from "./cards.js";
import { actionTitle, fieldTitle, gameTitle, h } from "./dom.js";
import { has, t } from "./i18n.js";
import { complaintSection } from "./jurisdiction.js";
import { handName, localParams } from "./locale.js";
import { formatMoney } from "./money.js";
import { handRanking } from "./ranking.js";
import { fairnessCheck, signedLoader } from "./verify.js";

function slugTitle(slug) {
  return String(slug).split(/[-_ ]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(" ");
}

/** A betting field's paytable as the server describes it (the field's own, or by name). */
export function paytableOf(game, name) {
  const field = game.fields.find((f) => f.name === name);
  return game.field_paytables?.[name] ?? field?.paytable ?? game.paytables?.[name] ?? game.paytables?.[`${name}_paytable`] ?? null;
}

/** Paytable rows [{hand, pays}] from the server's shapes: a list of rows or a {slug: pays} map. */
export function paytableRows(raw) {
  if (!raw) return [];
  if (Array.isArray(raw)) {
    return raw.map((row) => ({
      hand: row.key ? t(row.key, localParams(row.params)) : row.name ?? row.hand ?? row.label ?? slugTitle(row.category ?? "?"),
      pays: row.pays ?? row.odds ?? row.payout,
    }));
  }
  if (typeof raw === "object") {
    if (Array.isArray(raw.rows)) return paytableRows(raw.rows);
    return Object.entries(raw)
      .filter(([, pays]) => typeof pays === "number" || typeof pays === "string")
      .map(([slug, pays]) => ({ hand: slugTitle(slug), pays }));
  }
  return [];
}

export function paytableNote(raw) {
  if (!raw || Array.isArray(raw) || typeof raw !== "object") return null;
  if (raw.note_key) return t(raw.note_key, localParams(raw.note_params));
  return raw.note ?? raw.description ?? null;
}

function pays(value) {
  if (typeof value === "number") return t("paytable.pays", { pays: value });
  return value === "push" ? t("paytable.push") : String(value);
}

/** A paytable line starts with a capital ("Ases o mejor": the catalogue's ranks are lower-case in Spanish). */
function capitalized(text) {
  return text ? text.charAt(0).toLocaleUpperCase() + text.slice(1) : text;
}

export function paytableTable(field, raw) {
  const rows = paytableRows(raw);
  const note = paytableNote(raw);
  return h("div.paytable", { dataset: { paytable: field } },
    h("table", {},
      h("caption", {}, t("paytable.caption", { field: fieldTitle(field) })),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("paytable.hand")), h("th", { scope: "col" }, t("paytable.pays_header")))),
      h("tbody", {}, rows.map((row) => h("tr", {}, h("td", {}, capitalized(row.hand)), h("td", {}, pays(row.pays)))))),
    note ? h("p.paytable__note", {}, note) : null);
}

/** Opens a Min/Max sign's paytable (closing any other), or closes it. */
function toggleSign(sign, open = !sign.classList.contains("is-open")) {
  for (const other of document.querySelectorAll(".minmax.is-open")) {
    other.classList.remove("is-open");
    other.setAttribute("aria-expanded", "false");
  }
  sign.classList.toggle("is-open", open);
  sign.setAttribute("aria-expanded", String(open));
}

let signsWatched = false;

/** Esc, or a click anywhere but on a sign, closes an open paytable (installed once per page). */
function closeSignsOnEscape() {
  if (signsWatched) return;
  signsWatched = true;
  const closeAll = () => {
    for (const sign of document.querySelectorAll(".minmax.is-open")) toggleSign(sign, false);
    if (document.activeElement?.classList.contains("minmax")) document.activeElement.blur(); // keyboard focus shows it too
  };
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") closeAll(); });
  document.addEventListener("pointerdown", (event) => {
    if (!(event.target instanceof Element) || !event.target.closest(".minmax")) closeAll();
  }, true);
}

/** A field's Min/Max sign (solo and live): its limits, and its paytable on hover, click, tap or Enter. */
export function limitSign(game, name, min, max) {
  const paytable = paytableOf(game, name);
  closeSignsOnEscape();
  return h("div.minmax", {
    tabindex: "0", dataset: { minmax: name }, role: paytable ? "button" : undefined,
    "aria-expanded": paytable ? "false" : undefined,
    "aria-label": t("spot.limits", { field: fieldTitle(name), min: formatMoney(min), max: formatMoney(max) }),
    // A click or a tap (or Enter) opens the paytable and closes it again; it never stays open by itself.
    onclick: paytable ? (event) => toggleSign(event.currentTarget) : undefined,
    onkeydown: paytable ? (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        toggleSign(event.currentTarget);
      }
    } : undefined,
  },
  h("span.minmax__row", {}, t("spot.min", { amount: formatMoney(min) })),
  h("span.minmax__row", {}, t("spot.max", { amount: formatMoney(max) })),
  paytable ? h("div.minmax__pop", { role: "tooltip" }, paytableTable(name, paytable)) : null);
}

export function formatRtp(value) {
  if (value === null || value === undefined) return t("rules.rtp_pending");
  const fraction = value <= 1.5 ? value : value / 100;
  return new Intl.NumberFormat(document.documentElement.lang || "en",
    { style: "percent", minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(fraction);
}

// The rules' entries the panel names in the player's language: what each means, its value in words.
const DESCRIBED = new Set(["game", "title", "rules_version", "ante_qualifier", "dealer_qualifier", "aa_min_pair",
  "aa_settles_on_fold"]);
// A live table's own timers (GET /api/tables, the welcome's table), in the order the round meets them.
const TIMERS = [["betting_seconds", "rules.setting.betting_seconds"], ["decision_seconds", "rules.setting.decision_seconds"],
  ["deal_seconds", "rules.setting.deal_seconds"], ["pause_seconds", "rules.setting.pause_seconds"]];

function pointTitle(point) {
  return has(`phase.${point}`) ? t(`phase.${point}`) : point;
}

function yesNo(value) {
  return t(value ? "rules.yes" : "rules.no");
}

/**
 * The "Table settings" of a game's rules (and a live `table`'s timers): [label, value] pairs, each
 * from the catalogue; an entry a newer rules file adds and the page does not know is shown as it is.
 */
export function ruleSettings(rules, table = null) {
  const rows = [];
  if (rules.ante_qualifier) {
    rows.push([t("rules.setting.ante_qualifier"), t("paytable.or_better", localParams({ category: rules.ante_qualifier }))]);
  }
  if (rules.dealer_qualifier) {
    rows.push([t("rules.setting.dealer_qualifier"),
      t("paytable.pair_or_better", localParams({ rank_plural: String(rules.dealer_qualifier)[0] }))]);
  }
  if (rules.aa_min_pair) {
    rows.push([t("rules.setting.aa_min_pair"), t("paytable.pair_or_better", localParams({ rank_plural: rules.aa_min_pair }))]);
  }
  if (typeof rules.aa_settles_on_fold === "boolean") rows.push([t("rules.setting.aa_settles_on_fold"), yesNo(rules.aa_settles_on_fold)]);
  for (const [point, action] of Object.entries(table?.timeout_actions ?? rules.timeout_actions ?? {})) {
    rows.push([t("rules.setting.timeout_action", { point: pointTitle(point) }), actionTitle(action)]);
  }
  for (const [name, key] of TIMERS) {
    if (typeof table?.[name] === "number") rows.push([t(key), t("rules.seconds", { count: table[name] })]);
  }
  for (const [key, value] of Object.entries(rules)) {
    if (DESCRIBED.has(key) || !["string", "number", "boolean"].includes(typeof value)) continue;
    rows.push([slugTitle(key), typeof value === "boolean" ? yesNo(value) : String(value)]);
  }
  return rows;
}

/** The rules & paytable panel for one game (at a live table: `table`, its configuration). */
export function rulesPanel(game, { table = null } = {}) {
  const settings = ruleSettings(game.rules ?? {}, table);
  return h("div.panel__body", {},
    h("h3", {}, t("rules.limits_title")),
    h("table.limits", {},
      h("thead", {}, h("tr", {}, ["rules.bet", "rules.min", "rules.max", "rules.rtp"].map((key) => h("th", { scope: "col" }, t(key))))),
      h("tbody", {}, Object.keys({ ...Object.fromEntries(game.fields.map((f) => [f.name, 1])), ...(game.rtp ?? {}) })
        .map((name) => {
          const field = game.fields.find((f) => f.name === name);
          return h("tr", { dataset: { rtp: name } },
            h("th", { scope: "row" }, fieldTitle(name)),
            h("td", {}, field ? formatMoney(field.min) : "—"),
            h("td", {}, field ? formatMoney(field.max) : "—"),
            // A bet placed by a decision (flop, turn, river, raise) is part of the Ante's game.
            h("td.rtp", {}, !field && game.rtp?.[name] == null ? t("rules.rtp_in_ante") : formatRtp(game.rtp?.[name])));
        }))),
    game.fields.filter((f) => paytableOf(game, f.name)).map((f) => paytableTable(f.name, paytableOf(game, f.name))),
    handRanking(),
    settings.length ? h("h3", {}, t("rules.settings")) : null,
    settings.length ? h("dl.settings", { id: "rules-settings" }, settings.flatMap(([label, value]) =>
      [h("dt", {}, label), h("dd", {}, value)])) : null,
    complaintSection(),
    // The rules' version is for a dispute or an auditor: the panel's footer, not the player's view.
    h("p.panel__footer", { id: "rules-version" },
      t("rules.version", { game: gameTitle(game), version: game.rules?.rules_version ?? "?" })));
}

/** When a round was played, in the player's language ("03.12.26, 14:05"). */
export function playedAt(iso) {
  const when = typeof iso === "string" ? new Date(iso) : null;
  if (!when || Number.isNaN(when.getTime())) return "";
  return new Intl.DateTimeFormat(document.documentElement.lang || "en", { dateStyle: "short", timeStyle: "short" })
    .format(when);
}

/**
 * A history entry as a player reads it: when, which game, both hands and the net ("3/12/26,
 * 14:05 · Casino Hold'em · You: Pair of Sixes · Dealer: High Card, King · +€10.00"), never an id.
 */
export function historyEntry({ when, game, settlement, net }) {
  const you = settlement?.player_hand?.name ? t("result.your_hand", { hand: handName(settlement.player_hand) }) : null;
  const dealer = settlement?.dealer_hand?.name ? t("result.dealer_hand", { hand: handName(settlement.dealer_hand) }) : null;
  return [
    h("span.history__when", {}, playedAt(when)),
    h("span.history__summary", {}, [gameTitle({ id: game, title: game }), you, dealer,
      net === null || net === undefined ? t("history.open") : formatMoney(net, { signed: true })].filter(Boolean).join(" · ")),
  ];
}

/** The history list; `onOpen(round)` opens its replay. */
export function historyList(rounds, onOpen) {
  if (!rounds.length) return h("p.empty", {}, t("history.empty"));
  return h("ol.history", {}, rounds.map((round) => h("li", {},
    h("button.btn.btn--link", { type: "button", dataset: { round: round.id }, onclick: () => onOpen(round) },
      historyEntry({ when: round.updated_at ?? round.created_at, game: round.game, settlement: round.settlement,
        net: round.settlement ? round.settlement.net : null })))));
}

/**
 * A replay of every step of a round. When the server sends `frames` (the visible table after
 * each step) each step shows its own cards; otherwise each step is listed with the final table.
 */
export function replayView(round, api = null) {
  const frames = Array.isArray(round.frames) && round.frames.length ? round.frames : null;
  const steps = round.steps ?? [];
  const count = frames ? frames.length : steps.length;
  let index = 0;
  const cards = {
    dealer: h("div.cards.cards--small", { dataset: { replay: "dealer" } }),
    board: h("div.cards.cards--small", { dataset: { replay: "board" } }),
    player: h("div.cards.cards--small", { dataset: { replay: "player" } }),
  };
  const caption = h("p.replay__step", { "aria-live": "polite" });
  const list = h("ol.replay__steps", {}, steps.map((step, i) => h("li", { dataset: { step: i } },
    `${actionTitle(step.action ?? step.step ?? "?")}`,
    step.stake ? ` — ${t("replay.stake", { amount: formatMoney(step.stake) })}` : "",
    step.source && step.source !== "player" ? ` (${step.source})` : "")));
  const show = () => {
    const frame = frames ? frames[index] : round;
    const step = frames ? frame.step ?? steps[index] : steps[index];
    fillCards(cards.dealer, frame.dealer_cards ?? [], 2, { small: true });
    fillCards(cards.board, frame.board ?? [], 5, { small: true });
    fillCards(cards.player, frame.player_cards ?? [], 2, { small: true });
    const label = typeof step === "object" && step ? actionTitle(step.action ?? step.step ?? "") : String(step ?? "");
    const stake = step?.stake ? ` (${t("replay.stake", { amount: formatMoney(step.stake) })})` : "";
    const hand = frame.player_hand?.name ? ` — ${t("result.your_hand", { hand: handName(frame.player_hand) })}` : "";
    caption.textContent = `${t("replay.step", { step: index + 1, count })}: ${label}${stake}${hand}`;
    for (const li of list.children) li.classList.toggle("is-current", Number(li.dataset.step) === index);
    prev.disabled = index === 0;
    next.disabled = index >= count - 1;
  };
  const prev = h("button.btn", { type: "button", onclick: () => { index -= 1; show(); } }, t("replay.prev"));
  const next = h("button.btn", { type: "button", onclick: () => { index += 1; show(); } }, t("replay.next"));
  const settlement = round.settlement;
  const view = h("div.replay", { dataset: { replayRound: round.id } },
    h("p.replay__summary", {}, historyEntry({ when: round.updated_at ?? round.created_at, game: round.game,
      settlement: round.settlement, net: round.settlement ? round.settlement.net : null })),
    h("div.replay__table", {},
      h("span.replay__label", {}, t("zone.dealer")), cards.dealer,
      h("span.replay__label", {}, t("zone.board")), cards.board,
      h("span.replay__label", {}, t("zone.you")), cards.player),
    caption,
    h("div.replay__nav", {}, prev, next),
    list,
    settlement ? settlementTable(settlement) : null,
    fairnessCheck(round, { signed: api && round.status === "settled"
      ? signedLoader(api, `/api/rounds/${encodeURIComponent(round.id)}/record`) : null }));
  if (count) show();
  else caption.textContent = t("replay.no_steps");
  return view;
}

/** The winning lines and amounts of a settlement. */
export function settlementTable(settlement) {
  return h("table.lines", {},
    h("thead", {}, h("tr", {}, ["lines.field", "lines.stake", "lines.returned", "lines.net"]
      .map((key) => h("th", { scope: "col" }, t(key))))),
    h("tbody", {}, (settlement.lines ?? []).map((line) =>
      h(`tr.${line.net > 0 ? "line--win" : line.net < 0 ? "line--lose" : "line--push"}`, { dataset: { line: line.field } },
        h("th", { scope: "row" }, fieldTitle(line.field)),
        h("td", {}, formatMoney(line.stake)),
        h("td", {}, formatMoney(line.returned)),
        h("td", {}, formatMoney(line.net, { signed: true }))))));
}

/** The paytable line a Bonus was paid by, in the player's language (the server's English otherwise). */
function bonusLine(bonus, game) {
  const raw = game ? paytableOf(game, bonus.field ?? "bonus") : null;
  const rows = Array.isArray(raw) ? raw : raw?.rows ?? [];
  const row = rows.find((r) => r.key && bonus.line && r.hand === bonus.line)
    ?? rows.find((r) => r.key?.startsWith("paytable.bonus.") && r.key.slice("paytable.bonus.".length).split("+").includes(bonus.hand));
  if (row && (bonus.line || bonus.status !== "lost")) return t(row.key, localParams(row.params));
  return bonus.line ?? bonus.name ?? "";
}

/** The Bonus result paid on the hole cards (solo and live): its text, and whether it won. */
export function bonusText(bonus, game = null) {
  const title = fieldTitle(bonus.field ?? "bonus");
  const name = bonusLine(bonus, game);
  const net = bonus.net ?? (bonus.returned !== undefined ? bonus.returned - (bonus.stake ?? 0) : null);
  const won = net !== null && net > 0;
  if (bonus.status === "pending" || bonus.pending) return { text: t("bonus.pending", { field: title }), won };
  if (won) return { text: `${t("result.side_wins", { field: title, amount: formatMoney(net, { signed: true }) })}${name ? ` — ${name}` : ""}`, won };
  if (net !== null && net < 0) return { text: `${t("result.side_lost", { field: title })}${name ? ` — ${name}` : ""}`, won };
  return { text: `${title}${name ? `: ${name}` : ""}`, won };
}
