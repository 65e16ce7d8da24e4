// Rounds: the search (round id, player, operator and its player id, game, table, jurisdiction,
// time and stake ranges, status) and a round's page: the jurisdiction profile in force for it
// (each seat's, at a live table), the table as the player saw it after each step, its ledger,
// its wallet calls with the operator, its record and the one-click
// verification of its fairness record.

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cardRow, cell, currencyCodes, field, minorOf, money, table } from "./format.js";
import { get, query } from "./http.js";
import { can, errorText, session } from "./state.js";

const STATUS_NAMES = { open: "admin.rounds.status.open", settled: "admin.rounds.status.settled",
  misdeal: "admin.rounds.status.misdeal", credit_pending: "admin.rounds.status.credit_pending" };

/** The jurisdiction a round (or seat) was played under and its profile's version; "—" for a
 * round from before jurisdictions. */
function profileText(jurisdiction, version) {
  return jurisdiction ? t("admin.rounds.profile_short", { jurisdiction, version: version ?? "—" }) : "—";
}

/** The rows of a list of rounds (search results, a player's history), each linking to its page,
 * with the player's operator ("embedded" for a demo player), the operator's id of them and the
 * jurisdiction profile the round was played under. */
export function roundRows(rounds) {
  return table(
    [t("admin.rounds.round"), t("admin.rounds.player"), t("admin.rounds.operator"), t("admin.rounds.operator_player"),
      t("admin.rounds.game"), t("admin.rounds.table"), t("admin.reports.jurisdiction"),
      t("admin.rounds.status"), t("admin.rounds.staked"), t("admin.rounds.returned"), t("admin.rounds.opened")],
    rounds.map((row) => h(`tr${row.status === "misdeal" ? ".misdeal" : ""}`, { dataset: { status: row.status } },
      h("td", {}, h("a", { href: `#round/${row.round_id}` }, row.round_id)),
      h("td", {}, h("a", { href: `#player/${row.player_id}` }, row.player_id)),
      cell(row.operator, "operator"), cell(row.operator_player, "operator-player"), cell(row.game), cell(row.table_id),
      h("td.jurisdiction", { dataset: { jurisdiction: row.jurisdiction ?? "" } }, profileText(row.jurisdiction, row.profile_version)),
      cell(t(STATUS_NAMES[row.status] ?? row.status)),
      cell(money(row.total_stake, row.currency), "num"), cell(money(row.total_returned, row.currency), "num"),
      cell(row.created_at))));
}

function isoStart(value) {
  return value ? `${value}T00:00:00.000000Z` : "";
}

/** The players the one search box named: each links to its page, with its casino's id. */
function playerMatches(players) {
  if (!players?.length) return null;
  return h("div.matches", {}, h("h3", {}, t("admin.search.players")),
    table([t("admin.rounds.player"), t("admin.rounds.operator"), t("admin.rounds.operator_player"), t("admin.reports.currency")],
      players.map((p) => h("tr", {}, h("td", {}, h("a", { href: `#player/${p.player_id}` }, p.player_id)),
        cell(p.operator), cell(p.operator_player), cell(p.currency)))));
}

export async function roundsPage(container, text = "") {
  const currencies = currencyCodes();
  const inputs = {
    q: h("input.search-box", { name: "q", type: "search", value: text, placeholder: t("admin.search.placeholder"),
      "aria-label": t("admin.search.label") }),
    round: h("input", { name: "round" }),
    player: h("input", { name: "player" }),
    operator: h("input", { name: "operator", placeholder: "embedded" }),
    operator_player: h("input", { name: "operator_player" }),
    game: h("select", { name: "game" }, h("option", { value: "" }, t("admin.any")),
      h("option", { value: "texas-bonus" }, t("game.texas-bonus")),
      h("option", { value: "casino-holdem" }, t("game.casino-holdem"))),
    table: h("input", { name: "table" }),
    jurisdiction: h("input", { name: "jurisdiction", placeholder: "GB", size: 7, maxlength: 8 }),
    since: h("input", { name: "since", type: "date" }),
    until: h("input", { name: "until", type: "date" }),
    currency: h("select", { name: "currency" }, ...currencies.map((code) =>
      h("option", { value: code, selected: code === session.me?.default_currency }, code))),
    min_stake: h("input", { name: "min_stake", inputmode: "decimal" }),
    max_stake: h("input", { name: "max_stake", inputmode: "decimal" }),
    status: h("select", { name: "status" }, h("option", { value: "" }, t("admin.any")),
      h("option", { value: "open" }, t("admin.rounds.status.open")),
      h("option", { value: "settled" }, t("admin.rounds.status.settled")),
      h("option", { value: "credit_pending" }, t("admin.rounds.status.credit_pending")),
      h("option", { value: "misdeal" }, t("admin.rounds.status.misdeal"))),
  };
  const results = h("div.results");
  const more = h("button.btn.secondary", { type: "button", hidden: true }, t("admin.rounds.more"));
  let last = null;

  async function load(append) {
    const params = Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, input.value]));
    params.since = isoStart(params.since);
    params.until = isoStart(params.until);
    // stakes are typed in the chosen currency's units and sent in its minor units
    for (const name of ["min_stake", "max_stake"]) {
      params[name] = minorOf(params[name], params.currency);
      if (params[name] === null) {
        results.replaceChildren(h("p.message", { role: "alert" }, t("admin.rounds.bad_amount", { currency: params.currency })));
        return;
      }
    }
    if (params.min_stake === "" && params.max_stake === "") params.currency = "";
    if (append && last) params.before = last;
    try {
      const { rounds, players } = await get(`/rounds${query(params)}`);
      last = rounds.length ? rounds[rounds.length - 1].created_at : last;
      more.hidden = rounds.length < 50;
      const shown = rounds.length === 0 && !append ? h("p", {}, t("admin.rounds.none")) : roundRows(rounds);
      if (append) results.append(shown); else results.replaceChildren(...[playerMatches(players), shown].filter(Boolean));
    } catch (error) {
      results.replaceChildren(h("p.message", { role: "alert" }, errorText(error)));
    }
  }
  more.addEventListener("click", () => load(true));
  container.append(h("h2", {}, t("admin.nav.rounds")),
    h("form.search", { onsubmit: (event) => { event.preventDefault(); load(false); } },
      h("label.field.wide", {}, h("span", {}, t("admin.search.label")), inputs.q),
      h("button.btn", { type: "submit" }, t("admin.search"))),
    h("details.more-filters", { open: true }, h("summary", {}, t("admin.search.more")),
      h("form.filters", { onsubmit: (event) => { event.preventDefault(); load(false); } },
        field(t("admin.rounds.round"), inputs.round), field(t("admin.rounds.player"), inputs.player),
        field(t("admin.rounds.operator"), inputs.operator),
        field(t("admin.rounds.operator_player"), inputs.operator_player),
        field(t("admin.rounds.game"), inputs.game), field(t("admin.rounds.table"), inputs.table),
        field(t("admin.reports.jurisdiction"), inputs.jurisdiction),
        field(t("admin.rounds.since"), inputs.since), field(t("admin.rounds.until"), inputs.until),
        field(t("admin.reports.currency"), inputs.currency),
        field(t("admin.rounds.min_stake_units"), inputs.min_stake),
        field(t("admin.rounds.max_stake_units"), inputs.max_stake),
        field(t("admin.rounds.status"), inputs.status),
        h("button.btn", { type: "submit" }, t("admin.search")))),
    results, more);
  await load(false);
}

function replayTable(replay) {
  return table(
    [t("admin.round.step"), t("admin.round.action"), t("admin.round.player_cards"), t("admin.round.dealer_cards"),
      t("admin.round.board"), t("admin.rounds.staked"), t("admin.rounds.returned")],
    replay.frames.map((frame) => h("tr", {}, cell(frame.step.step), cell(frame.step.action),
      h("td", {}, cardRow(frame.player_cards)), h("td", {}, cardRow(frame.dealer_cards)), h("td", {}, cardRow(frame.board)),
      cell(money(frame.step.stake, replay.currency), "num"), cell(money(frame.step.returned, replay.currency), "num"))));
}

const OUTCOMES = { win: "admin.round.outcome.win", lose: "admin.round.outcome.lose", tie: "admin.round.outcome.tie",
  fold: "admin.round.outcome.fold", misdeal: "admin.round.outcome.misdeal" };

/** Who won, with what: the outcome in words, both hands named, the cards as cards. */
function outcomeBlock(settlement, dealt) {
  const outcome = settlement?.outcome;
  const verdict = OUTCOMES[outcome] ? t(OUTCOMES[outcome]) : (outcome ?? t("admin.round.outcome.open"));
  const dealer = settlement?.dealer_hand?.name
    ?? (outcome === "fold" ? t("admin.round.dealer_not_needed") : "—");
  const qualifies = settlement?.dealer_qualifies === false ? ` — ${t("admin.round.dealer_not_qualified")}` : "";
  return h("div.outcome", { dataset: { outcome: outcome ?? "open" } },
    h("p.verdict-line", {}, h("strong", {}, verdict)),
    h("dl.hands", {},
      h("dt", {}, t("admin.round.player_hand")),
      h("dd.player-hand", {}, cardRow(dealt?.player), " ", settlement?.player_hand?.name ?? "—"),
      h("dt", {}, t("admin.round.dealer_hand")),
      h("dd.dealer-hand", {}, cardRow(dealt?.dealer), " ", `${dealer}${qualifies}`),
      h("dt", {}, t("admin.round.board")), h("dd.board", {}, cardRow(dealt?.board))));
}

/** Each bet: its stake, result (won, lost, returned) and what it returned. */
function betsTable(settlement, currency) {
  const result = (line) => (line.net > 0 ? t("admin.round.bet_won") : line.net < 0 ? t("admin.round.bet_lost")
    : t("admin.round.bet_returned"));
  const lines = settlement?.lines ?? [];
  const total = { stake: settlement?.total_stake ?? 0, returned: settlement?.total_returned ?? 0, net: settlement?.net ?? 0 };
  return table([t("admin.round.bet"), t("admin.rounds.staked"), t("admin.round.result"), t("admin.rounds.returned"),
    t("admin.round.net")],
  [...lines.map((line) => h("tr.bet", { dataset: { field: line.field } }, cell(line.field),
    cell(money(line.stake, currency), "num"), cell(result(line)), cell(money(line.returned, currency), "num"),
    cell(money(line.net, currency), "num"))),
  h("tr.total", {}, cell(t("admin.round.total")), cell(money(total.stake, currency), "num"), cell(""),
    cell(money(total.returned, currency), "num"), cell(money(total.net, currency), "num"))]);
}

/** A studio round: the misdeal (the round is void: every bet returned) and where the cards came from. */
function studioBlock(record) {
  if (!record || (record.dealing !== "studio" && !record.misdeal)) return null;
  const sources = [...new Set((record.cards ?? []).map((c) => c.source))];
  const voided = (record.cards ?? []).filter((c) => c.voided_at).length;
  return h("div.studio", {},
    record.misdeal ? h("p.misdeal.bad", { role: "status" }, t("admin.round.misdeal", {
      by: record.misdeal.by, reason: record.misdeal.reason, at: record.misdeal.at })) : null,
    h("p.source", {}, t("admin.round.studio_source", { sources: sources.join(", ") || "—", count: (record.cards ?? []).length,
      voided })));
}

function ledgerTable(entries, currency) {
  return table([t("admin.round.txid"), t("admin.round.account"), t("admin.round.amount"), t("admin.round.memo"),
    t("admin.audit.at")], entries.map((entry) => h("tr", {}, cell(entry.txid, "code"), cell(entry.account),
    cell(money(entry.amount, currency), "num"), cell(entry.memo), cell(entry.at))));
}

/** A wallet answer as its parts: its status and balance (else the text as received: "timeout"...). */
function answerParts(answer, currency) {
  let parsed = null;
  try { parsed = typeof answer === "string" ? JSON.parse(answer) : answer; } catch { parsed = null; }
  if (parsed && typeof parsed === "object") {
    return [parsed.status ?? "", parsed.balance === undefined ? "" : money(parsed.balance, currency)];
  }
  return [answer ?? "", ""];
}

function walletTable(wallet, currency) {
  const calls = table([t("admin.round.transaction"), t("admin.round.call"), t("admin.round.amount"), t("admin.round.http_status"),
    t("admin.round.wallet_status"), t("admin.round.wallet_balance"), t("admin.audit.at"), t("admin.round.duration")],
  wallet.calls.map((call) => {
    const [status, balance] = answerParts(call.answer, currency);
    const amount = call.request?.amount ?? call.body?.amount;
    return h("tr", {}, cell(call.transaction_id, "code"), cell(call.call), cell(amount === undefined ? "" : money(amount, currency), "num"),
      cell(call.http_status ?? ""), cell(status), cell(balance, "num"), cell(call.at), cell(call.duration_ms, "num"));
  }));
  calls.classList.add("wallet-calls");
  return calls;
}

/** The jurisdiction profile in force for a round or a seat: its code and version, then what the
 * server enforced under it (games, modes, approved paytables, stake limit, hint), as the signed
 * record keeps it. */
function profileBlock(profile) {
  if (!profile) return h("p.profile.none", {}, t("admin.round.no_profile"));
  const shown = (value) => (Array.isArray(value) ? value.join(", ") || "—"
    : value !== null && typeof value === "object" ? Object.entries(value).map(([k, v]) => `${k} ${v}`).join(", ") || "—"
      : value === null || value === undefined ? t("admin.round.profile_unrestricted") : String(value));
  return h("div.profile", { dataset: { jurisdiction: profile.id, version: profile.version } },
    h("p.profile-line", {}, t("admin.round.profile", { jurisdiction: profile.id, version: profile.version })),
    h("details", {}, h("summary", {}, t("admin.round.profile_settings")),
      h("dl.profile-settings", {}, ...["games", "modes", "paytables", "max_stake", "strategy_hint"]
        .filter((name) => name in profile)
        .flatMap((name) => [h("dt", {}, name), h("dd", { dataset: { setting: name } }, shown(profile[name]))]))));
}

function seatsBlock(record) {
  return h("div.seats", {}, ...record.seats.map((seat) => h("section.seat", { dataset: { player: seat.player_id } },
    h("h4", {}, h("a", { href: `#player/${seat.player_id}` }, seat.player_id)),
    profileBlock(seat.jurisdiction),
    outcomeBlock(seat.settlement, record.dealt), betsTable(seat.settlement, record.currency))));
}

export async function roundPage(container, roundId) {
  const page = await get(`/round${query({ id: roundId })}`);
  const about = page.round;
  const currency = about.currency ?? page.record?.currency;
  const verdict = h("div.verdict");
  const verify = h("button.btn", {
    type: "button",
    onclick: async () => {
      verdict.replaceChildren(h("p", {}, t("admin.round.verifying")));
      try {
        const result = await get(`/round/verification${query({ id: roundId })}`);
        if (result.verified === null) {
          verdict.replaceChildren(h("p", {}, t("admin.round.not_settled")));
          return;
        }
        verdict.replaceChildren(
          h(`p.${result.verified ? "ok" : "bad"}.result`, {}, t(result.verified ? "admin.round.verified" : "admin.round.failed")),
          table([t("admin.round.check"), t("admin.round.result"), t("admin.round.detail")],
            result.findings.map((f) => h(`tr${f.ok ? "" : ".flagged"}`, {}, cell(f.subject),
              cell(t(f.ok ? "admin.round.check_ok" : "admin.round.check_bad")), cell(f.message)))));
      } catch (error) {
        verdict.replaceChildren(h("p.message", { role: "alert" }, errorText(error)));
      }
    },
  }, t("admin.round.verify"));
  container.append(h("h2", {}, t("admin.round.title", { id: roundId })),
    h("p", {}, about.kind === "solo"
      ? t("admin.round.solo_summary", { player: about.player_id, game: about.game, status: about.status,
        opened: about.created_at })
      : t("admin.round.live_summary", { table: about.table_id, number: about.number })));
  if (about.kind === "solo") container.append(h("h3", {}, t("admin.round.profile_title")), profileBlock(about.jurisdiction));
  container.append(...[studioBlock(page.record)].filter(Boolean));
  if (about.kind === "solo") {
    const last = page.replay?.frames?.[page.replay.frames.length - 1];
    const settlement = page.record?.settlement ?? null;
    const dealt = page.record?.dealt ?? { player: last?.player_cards, dealer: last?.dealer_cards, board: last?.board };
    container.append(h("h3", {}, t("admin.round.outcome")), outcomeBlock(settlement, dealt),
      h("h3", {}, t("admin.round.bets")), settlement ? betsTable(settlement, currency) : h("p", {}, t("admin.round.not_settled")));
  }
  if (page.record?.seats) container.append(h("h3", {}, t("admin.round.seats")), seatsBlock(page.record));
  if (page.replay) container.append(h("h3", {}, t("admin.round.replay")), replayTable(page.replay));
  const entries = page.ledger.length ? page.ledger : (page.record?.ledger ?? []);
  container.append(...[h("h3", {}, t("admin.round.ledger")),
    page.ledger.length || !entries.length ? null : h("p.note", {}, t("admin.round.ledger_from_wallet")),
    ledgerTable(entries, currency)].filter(Boolean));
  if (page.wallet) {
    container.append(h("h3", {}, t("admin.round.wallet")), walletTable(page.wallet, currency));
    if (page.wallet.credit_pending) container.append(h("p.message", {}, t("admin.round.credit_pending")));
  }
  if (can("rounds.verify")) container.append(h("div.actions", {}, verify), verdict);
  if (page.record) {
    container.append(h("h3", {}, t("admin.round.record")),
      h("details", {}, h("summary", {}, t("admin.round.show_record")), h("pre.code", {}, JSON.stringify(page.record, null, 1))));
  }
}
