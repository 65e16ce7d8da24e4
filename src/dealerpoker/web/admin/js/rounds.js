// Rounds: the search (round id, player, operator and its player id, game, table, time and stake
// ranges, status) and a round's page: the table as the player saw it after each step, its ledger,
// its wallet calls with the operator, its record and the one-click
// verification of its fairness record.

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cell, field, money, table } from "./format.js";
import { get, query } from "./http.js";
import { can, errorText } from "./state.js";

const STATUS_NAMES = { open: "admin.rounds.status.open", settled: "admin.rounds.status.settled" };

/** The rows of a list of rounds (search results, a player's history), each linking to its page,
 * with the player's operator ("embedded" for a demo player) and the operator's id of them. */
export function roundRows(rounds) {
  return table(
    [t("admin.rounds.round"), t("admin.rounds.player"), t("admin.rounds.operator"), t("admin.rounds.operator_player"),
      t("admin.rounds.game"), t("admin.rounds.table"),
      t("admin.rounds.status"), t("admin.rounds.staked"), t("admin.rounds.returned"), t("admin.rounds.opened")],
    rounds.map((row) => h("tr", {},
      h("td", {}, h("a", { href: `#round/${row.round_id}` }, row.round_id)),
      h("td", {}, h("a", { href: `#player/${row.player_id}` }, row.player_id)),
      cell(row.operator, "operator"), cell(row.operator_player, "operator-player"), cell(row.game), cell(row.table_id), cell(t(STATUS_NAMES[row.status] ?? row.status)),
      cell(money(row.total_stake, row.currency), "num"), cell(money(row.total_returned, row.currency), "num"),
      cell(row.created_at))));
}

function isoStart(value) {
  return value ? `${value}T00:00:00.000000Z` : "";
}

export async function roundsPage(container) {
  const inputs = {
    round: h("input", { name: "round" }),
    player: h("input", { name: "player" }),
    operator: h("input", { name: "operator", placeholder: "embedded" }),
    operator_player: h("input", { name: "operator_player" }),
    game: h("select", { name: "game" }, h("option", { value: "" }, t("admin.any")),
      h("option", { value: "texas-bonus" }, t("game.texas-bonus")),
      h("option", { value: "casino-holdem" }, t("game.casino-holdem"))),
    table: h("input", { name: "table" }),
    since: h("input", { name: "since", type: "date" }),
    until: h("input", { name: "until", type: "date" }),
    min_stake: h("input", { name: "min_stake", type: "number", min: 0, step: 1 }),
    max_stake: h("input", { name: "max_stake", type: "number", min: 0, step: 1 }),
    status: h("select", { name: "status" }, h("option", { value: "" }, t("admin.any")),
      h("option", { value: "open" }, t("admin.rounds.status.open")),
      h("option", { value: "settled" }, t("admin.rounds.status.settled")),
      h("option", { value: "credit_pending" }, t("admin.rounds.status.credit_pending"))),
  };
  const results = h("div.results");
  const more = h("button.btn.secondary", { type: "button", hidden: true }, t("admin.rounds.more"));
  let last = null;

  async function load(append) {
    const params = Object.fromEntries(Object.entries(inputs).map(([name, input]) => [name, input.value]));
    params.since = isoStart(params.since);
    params.until = isoStart(params.until);
    if (append && last) params.before = last;
    try {
      const { rounds } = await get(`/rounds${query(params)}`);
      last = rounds.length ? rounds[rounds.length - 1].created_at : last;
      more.hidden = rounds.length < 50;
      const shown = rounds.length === 0 && !append ? h("p", {}, t("admin.rounds.none")) : roundRows(rounds);
      if (append) results.append(shown); else results.replaceChildren(shown);
    } catch (error) {
      results.replaceChildren(h("p.message", { role: "alert" }, errorText(error)));
    }
  }
  more.addEventListener("click", () => load(true));
  container.append(h("h2", {}, t("admin.nav.rounds")),
    h("form.filters", { onsubmit: (event) => { event.preventDefault(); load(false); } },
      field(t("admin.rounds.round"), inputs.round), field(t("admin.rounds.player"), inputs.player),
      field(t("admin.rounds.operator"), inputs.operator),
      field(t("admin.rounds.operator_player"), inputs.operator_player),
      field(t("admin.rounds.game"), inputs.game), field(t("admin.rounds.table"), inputs.table),
      field(t("admin.rounds.since"), inputs.since), field(t("admin.rounds.until"), inputs.until),
      field(t("admin.rounds.min_stake"), inputs.min_stake), field(t("admin.rounds.max_stake"), inputs.max_stake),
      field(t("admin.rounds.status"), inputs.status),
      h("button.btn", { type: "submit" }, t("admin.search"))),
    results, more);
  await load(false);
}

function cards(list) {
  return (list ?? []).join(" ");
}

function replayTable(replay) {
  return table(
    [t("admin.round.step"), t("admin.round.action"), t("admin.round.player_cards"), t("admin.round.dealer_cards"),
      t("admin.round.board"), t("admin.rounds.staked"), t("admin.rounds.returned")],
    replay.frames.map((frame) => h("tr", {}, cell(frame.step.step), cell(frame.step.action),
      cell(cards(frame.player_cards)), cell(cards(frame.dealer_cards)), cell(cards(frame.board)),
      cell(money(frame.step.stake, replay.currency), "num"), cell(money(frame.step.returned, replay.currency), "num"))));
}

function ledgerTable(entries, currency) {
  return table([t("admin.round.txid"), t("admin.round.account"), t("admin.round.amount"), t("admin.round.memo"),
    t("admin.audit.at")], entries.map((entry) => h("tr", {}, cell(entry.txid, "code"), cell(entry.account),
    cell(money(entry.amount, currency), "num"), cell(entry.memo), cell(entry.at))));
}

function walletTable(wallet) {
  return table([t("admin.round.transaction"), t("admin.round.call"), t("admin.round.http_status"),
    t("admin.round.answer"), t("admin.audit.at"), t("admin.round.duration")],
  wallet.calls.map((call) => h("tr", {}, cell(call.transaction_id, "code"), cell(call.call),
    cell(call.http_status ?? ""), cell(call.answer ?? "", "code"), cell(call.at), cell(call.duration_ms, "num"))));
}

function seatsTable(record) {
  return table([t("admin.rounds.player"), t("admin.round.bets"), t("admin.rounds.staked"), t("admin.rounds.returned")],
    record.seats.map((seat) => h("tr", {}, h("td", {}, h("a", { href: `#player/${seat.player_id}` }, seat.player_id)),
      cell(JSON.stringify(seat.bets)), cell(money(seat.total_stake, record.currency), "num"),
      cell(money(seat.total_returned, record.currency), "num"))));
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
  if (page.replay) container.append(h("h3", {}, t("admin.round.replay")), replayTable(page.replay));
  if (page.record?.seats) container.append(h("h3", {}, t("admin.round.seats")), seatsTable(page.record));
  container.append(h("h3", {}, t("admin.round.ledger")), ledgerTable(page.ledger, currency));
  if (page.wallet) {
    container.append(h("h3", {}, t("admin.round.wallet")), walletTable(page.wallet));
    if (page.wallet.credit_pending) container.append(h("p.message", {}, t("admin.round.credit_pending")));
  }
  if (can("rounds.verify")) container.append(h("div.actions", {}, verify), verdict);
  if (page.record) {
    container.append(h("h3", {}, t("admin.round.record")),
      h("details", {}, h("summary", {}, t("admin.round.show_record")), h("pre.code", {}, JSON.stringify(page.record, null, 1))));
  }
}
