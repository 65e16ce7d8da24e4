// Players: by id or by operator and the operator's player id; their operator, balance, newest rounds,
// responsible-gaming limits and restriction with their history (who, when, before, after), manual
// adjustments; an admin adjusts a balance with a mandatory reason (its own ledger entry).

import { h } from "/js/dom.js";
import { has, t } from "/js/i18n.js";
import { cell, field, money, table } from "./format.js";
import { get, post, query } from "./http.js";
import { roundRows } from "./rounds.js";
import { can, errorText } from "./state.js";

async function findByOperator(operator, operatorPlayer, results) {
  try {
    const found = await get(`/players${query({ operator, operator_player: operatorPlayer })}`);
    if (found.accounts.length === 1) {
      location.hash = `#player/${found.accounts[0].player_id}`;
      return;
    }
    results.replaceChildren(h("h3", {}, t("admin.players.accounts")),
      table([t("admin.players.id"), t("admin.players.currency"), t("admin.players.mode")],
        found.accounts.map((a) => h("tr", {}, h("td", {}, h("a", { href: `#player/${a.player_id}` }, a.player_id)),
          cell(a.currency), cell(a.mode)))));
  } catch (error) {
    results.replaceChildren(h("p.message", { role: "alert" }, errorText(error)));
  }
}

export async function playersPage(container) {
  const id = h("input", { name: "player" });
  const operator = h("input", { name: "operator", required: true });
  const operatorPlayer = h("input", { name: "operator_player", required: true });
  const results = h("div.results");
  container.append(h("h2", {}, t("admin.nav.players")),
    h("form.filters", { onsubmit: (event) => { event.preventDefault(); location.hash = `#player/${id.value.trim()}`; } },
      field(t("admin.players.id"), id), h("button.btn", { type: "submit" }, t("admin.players.open"))),
    h("form.filters.by-operator", {
      onsubmit: (event) => {
        event.preventDefault();
        findByOperator(operator.value.trim(), operatorPlayer.value.trim(), results);
      },
    }, field(t("admin.rounds.operator"), operator), field(t("admin.rounds.operator_player"), operatorPlayer),
    h("button.btn", { type: "submit" }, t("admin.players.by_operator"))),
    results);
}

/** "loss_day" -> "Loss limit per 24 hours": a limit by its name, as the player's page names it. */
function limitName(kind) {
  return has(`rg.limit.${kind}`) ? t(`rg.limit.${kind}`) : kind;
}

function limitsTable(status) {
  return table([t("admin.players.limit"), t("admin.players.applies"), t("admin.players.set_by_player"),
    t("admin.players.set_by_operator")],
  Object.entries(status.limits).map(([kind, entry]) => h("tr", {}, cell(limitName(kind)), cell(entry.applies ?? "—"),
    cell(entry.player ?? "—"), cell(entry.operator ?? "—"))));
}

/** A limit's value: money in the player's currency, or minutes; "none" for no limit. */
function limitValue(kind, amount, currency) {
  if (amount === null || amount === undefined) return t("admin.players.no_limit");
  return kind === "session_minutes" ? t("admin.players.minutes", { minutes: amount }) : money(amount, currency);
}

/** One side (before or after) of a logged change: each limit with any raise waiting, or the restriction. */
function historySide(event, side, currency) {
  const value = event.detail[side];
  if (value === undefined) return t("admin.players.not_recorded"); // logged before sides were kept
  if (event.kind === "restriction") {
    if (value === null) return t("admin.players.no_limit");
    return value.until ? t("admin.players.until", { kind: value.kind, until: value.until })
      : t("admin.players.until_lifted", { kind: value.kind });
  }
  return Object.entries(value).map(([kind, view]) => {
    const pending = view.pending_at
      ? ` (${t("admin.players.pending", { amount: limitValue(kind, view.pending, currency), at: view.pending_at })})` : "";
    return `${limitName(kind)}: ${limitValue(kind, view.amount, currency)}${pending}`;
  }).join("; ");
}

function historyChange(event) {
  const { detail } = event;
  if (event.kind === "restriction") {
    const what = detail.kind === "none" ? t("admin.players.lifted") : detail.kind;
    return detail.reason ? `${what}: ${detail.reason}` : what;
  }
  return `${detail.source}: ${Object.keys(detail.limits).join(", ")}`;
}

/** Every limit, self-exclusion and cool-off set on the player, newest first: when, by whom, before, after. */
function historyTable(events, currency) {
  if (!events.length) return h("p", {}, t("admin.players.no_history"));
  return table([t("admin.audit.at"), t("admin.players.history_by"), t("admin.players.history_change"),
    t("admin.players.before"), t("admin.players.after")],
  events.map((event) => h(`tr.${event.kind}`, {}, cell(event.at), cell(event.by), cell(historyChange(event)),
    cell(historySide(event, "before", currency), "before"), cell(historySide(event, "after", currency), "after"))));
}

function adjustForm(playerId, account, done) {
  const amount = h("input", { name: "amount", type: "number", step: 1, required: true });
  const reason = h("input", { name: "reason", required: true, minlength: 3, maxlength: 200 });
  const message = h("p.message", { role: "alert" });
  const key = crypto.randomUUID().replaceAll("-", "").slice(0, 32);
  return h("form.filters.adjust", {
    onsubmit: async (event) => {
      event.preventDefault();
      message.textContent = "";
      try {
        await post(`/players/${encodeURIComponent(playerId)}/adjustments`,
          { amount: Number(amount.value), reason: reason.value, key });
        done();
      } catch (error) {
        message.textContent = errorText(error);
      }
    },
  }, field(t("admin.players.amount", { currency: account.currency }), amount),
  field(t("admin.players.reason"), reason), h("button.btn", { type: "submit" }, t("admin.players.adjust")), message);
}

const PERIOD_NAMES = { today: "admin.players.period.today", "7_days": "admin.players.period.7_days",
  "30_days": "admin.players.period.30_days", lifetime: "admin.players.period.lifetime" };

/** The player's totals per period, in their currency: rounds, turnover, returned, the player's
 *  net, the house's GGR, sessions, misdeals; then the rounds still open. */
function totalsTable(totals, currency) {
  const grid = table([t("admin.players.period"), t("admin.reports.rounds"), t("admin.players.turnover"),
    t("admin.rounds.returned"), t("admin.players.net"), t("admin.reports.ggr"), t("admin.players.sessions"),
    t("admin.reports.misdeals")],
  Object.entries(totals.periods).map(([name, p]) => h("tr", { dataset: { period: name } }, cell(t(PERIOD_NAMES[name])),
    cell(p.rounds, "num"), cell(money(p.staked, currency), "num"), cell(money(p.returned, currency), "num"),
    cell(money(p.net, currency), `num${p.net < 0 ? ".bad" : ""}`), cell(money(p.ggr, currency), "num"),
    cell(p.sessions, "num"), cell(p.misdeals, "num"))));
  grid.classList.add("player-totals");
  return h("div.totals", {}, grid, totals.open.rounds ? h("p.open-rounds", {}, t("admin.players.open_rounds",
    { rounds: totals.open.rounds, staked: money(totals.open.staked, currency) })) : null);
}

export async function playerPage(container, playerId) {
  const page = await get(`/players/${encodeURIComponent(playerId)}`);
  const { account } = page;
  const rg = page.responsible_gaming;
  container.append(h("h2", {}, t("admin.players.title", { id: playerId })),
    h("p.balance", {}, t(account.wallet === "operator" ? "admin.players.balance_operator" : "admin.players.balance",
      { balance: money(account.balance, account.currency) })),
    h("p.operator", {}, page.operator ? t("admin.players.of_operator", { operator: page.operator.operator,
      player: page.operator.operator_player, mode: page.operator.mode }) : t("admin.players.embedded")),
    h("h3", {}, t("admin.players.totals")), totalsTable(page.totals, account.currency),
    h("h3", {}, t("admin.players.rounds")), page.rounds.length ? roundRows(page.rounds) : h("p", {}, t("admin.rounds.none")),
    h("p", {}, h("a", { href: `#rounds` }, t("admin.players.all_rounds"))),
    h("h3", {}, t("admin.players.limits")), limitsTable(rg),
    h("p", {}, rg.restriction ? t("admin.players.restricted", { restriction: JSON.stringify(rg.restriction) })
      : t("admin.players.unrestricted")),
    h("h3", {}, t("admin.players.history")),
    h("div.history", {}, historyTable(page.restriction_history, account.currency)),
    h("h3", {}, t("admin.players.adjustments")),
    page.adjustments.length ? table([t("admin.round.txid"), t("admin.round.amount"), t("admin.audit.at")],
      page.adjustments.map((a) => h("tr", {}, cell(a.txid, "code"), cell(money(a.amount, account.currency), "num"),
        cell(a.at)))) : h("p", {}, t("admin.players.no_adjustments")));
  if (can("players.adjust") && account.wallet !== "operator") { // the operator adjusts its own wallet
    container.append(adjustForm(playerId, account, () => {
      container.replaceChildren();
      playerPage(container, playerId);
    }));
  }
}
