// The studio's dealer console (/dealer.html#/{table}): what the table needs next, a 52-card picker
// and keyboard entry ("Ah", Enter), VOID and MISDEAL, the round's card reports and the last rounds.
// It renders what the server sends over /ws/dealer/{table} and sends the dealer's reports; the
// server decides everything (what is expected, what is refused, the timers).
//
// Keyboard alone: the card field has the focus (type "Ah", Enter); Tab reaches every button;
// outside the card field, V voids the last card and M asks for a misdeal (Enter confirms, Esc
// cancels).
//
// Language: as the players' pages choose it (`?lang=`, the switch in the header, the browser's),
// every text from the catalogues (the "dealer." keys); amounts in the table's currency.

import { cardElement, cardLabel } from "./cards.js";
import { fieldTitle, h, setAttr, setText } from "./dom.js";
import { preferredLanguage, t, useLanguage } from "./i18n.js";
import { LANGUAGE_KEY, errorText, languageSwitch, launch, useCurrency } from "./locale.js";
import { formatMoney } from "./money.js";
import { TableSocketClient } from "./socket.js";

const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
const SUITS = [["s", "♠"], ["h", "♥"], ["d", "♦"], ["c", "♣"]];
const PHASES = {
  idle: "dealer.phase.idle", betting: "dealer.phase.betting", closed: "dealer.phase.closed",
  dealing: "dealer.phase.dealing", decision: "dealer.phase.decision", showdown: "dealer.phase.showdown",
  pause: "dealer.phase.pause",
};
const PLACES = { player: "dealer.place.player", dealer: "dealer.place.dealer", board: "dealer.place.board" };
const STREETS = { hole: "dealer.street.hole", flop: "dealer.street.flop", turn: "dealer.street.turn",
  river: "dealer.street.river" };
const STATUSES = { settled: "dealer.status.settled", misdeal: "dealer.status.misdeal" };
// What reported a card: the console's picker or keyboard, a card reader (other sources by their name).
const SOURCES = { console: "dealer.source.console", reader: "dealer.source.reader" };

/** A name the server sends as a slug, in the page's language (the slug itself when not known). */
function named(table, slug) {
  return table[slug] ? t(table[slug]) : String(slug ?? "");
}
const KEY_PREFIX = "dealerpoker.dealer-key.";

export class DealerConsole extends TableSocketClient {
  constructor(root, tableId, storage = window.sessionStorage) {
    super("dealer.not_sent");
    this.root = root;
    this.tableId = tableId;
    this.storage = storage;
    this.config = null;
    this.state = null;
    this.timer = null;
  }

  get key() {
    return this.storage.getItem(KEY_PREFIX + this.tableId);
  }

  start() {
    this.build();
    this.timer = setInterval(() => this.tick(), 200);
    if (this.key) this.connect();
    else this.askForKey();
  }

  destroy() {
    this.closed = true;
    clearInterval(this.timer);
    this.socket?.close();
  }

  // ---------------------------------------------------------------- the connection

  connect() {
    const socket = this.openSocket(`/ws/dealer/${encodeURIComponent(this.tableId)}`, this.key, (event) => {
      if (this.socket !== socket) return;
      this.el.connection.textContent = t("dealer.disconnected");
      if (this.closed || event.code === 4401 || event.code === 4404) return;
      this.retry(() => { if (!this.closed && this.socket === socket) this.connect(); });
    });
    this.el.connection.textContent = t("dealer.connecting");
  }

  receive(message) {
    switch (message.type) {
      case "welcome":
        this.config = message.table;
        useCurrency(message.currency_format ?? { code: message.currency ?? message.table.currency ?? "EUR" });
        this.el.title.textContent = t("dealer.title", { table: message.table.title });
        document.title = t("dealer.document_title", { table: message.table.title });
        this.el.connection.textContent = t("dealer.connected");
        this.el.keyForm.hidden = true;
        this.el.work.hidden = false;
        this.el.input.focus();
        break;
      case "dealer":
        this.state = message;
        if (message.event === "misdeal" && message.misdeal?.by === "timer") {
          // The server's reason is its English record; the console says it from the table's timer.
          this.say(t("dealer.misdeal_timer", { seconds: this.config?.deal_seconds ?? "?" }), "error");
        }
        break;
      case "expect":
        break; // the dealer message beside it carries the same expectation
      case "accepted":
        this.say(message.what === "misdeal" ? t("dealer.misdeal_called")
          : t(message.what === "void" ? "dealer.voided" : "dealer.reported", { card: message.card }), "info");
        break;
      case "error":
        this.say(errorText(message, message.message), "error");
        if (message.error === "unauthorized") {
          this.storage.removeItem(KEY_PREFIX + this.tableId);
          this.askForKey();
        }
        break;
      default:
        break;
    }
    this.render();
  }

  // ---------------------------------------------------------------- intents

  reportCard(text) {
    const card = text.trim();
    if (!card) return;
    this.send({ type: "card", card, source: "console" });
  }

  voidLast() {
    this.send({ type: "void" });
  }

  askMisdeal() {
    this.el.misdeal.hidden = true;
    this.el.confirm.hidden = false;
    this.el.cancel.hidden = false;
    this.el.confirm.focus();
  }

  endMisdealQuestion(focusEntry = true) {
    this.el.misdeal.hidden = false;
    this.el.confirm.hidden = true;
    this.el.cancel.hidden = true;
    if (focusEntry) this.el.input.focus();
  }

  // ---------------------------------------------------------------- building and rendering

  askForKey() {
    this.el.work.hidden = true;
    this.el.keyForm.hidden = false;
    this.el.keyInput.value = "";
    this.el.keyInput.focus();
  }

  build() {
    this.el = {};
    this.el.title = h("h1.hud__title", { id: "dealer-title" }, t("dealer.title", { table: this.tableId }));
    this.el.connection = h("span", { id: "connection", role: "status" }, t("dealer.not_connected"));
    this.el.message = h("p.message", { id: "message", role: "status", "aria-live": "polite" });
    this.el.keyInput = h("input", { id: "dealer-key", type: "password", autocomplete: "off", required: true });
    this.el.keyForm = h("form.dealer__key.dealer__panel", {
      id: "key-form",
      onsubmit: (event) => {
        event.preventDefault();
        this.storage.setItem(KEY_PREFIX + this.tableId, this.el.keyInput.value);
        this.socket?.close();
        this.connect();
      },
    }, h("label", { for: "dealer-key" }, t("dealer.key"), " "), this.el.keyInput, " ",
    h("button.btn.btn--primary", { type: "submit", id: "connect" }, t("dealer.connect")));

    this.el.phase = h("span.live__phase", { id: "dealer-phase" }, "—");
    this.el.countdown = h("output.dealer__countdown", { id: "dealer-countdown", "aria-label": t("dealer.seconds_left") }, "");
    this.el.round = h("span", { id: "dealer-round" }, "");
    this.el.players = h("output", { id: "dealer-players" }, "—");
    this.el.seated = h("output", { id: "dealer-seated" }, "—");
    this.el.stakes = h("p.dealer__stakes", { id: "dealer-stakes" }, "");
    this.el.expect = h("p.dealer__expect", { id: "dealer-expect", role: "status", "aria-live": "assertive" }, "");
    this.el.input = h("input", {
      id: "card-input", autocomplete: "off", autocapitalize: "off", spellcheck: "false",
      placeholder: "Ah", "aria-describedby": "dealer-expect",
      onkeydown: (event) => { if (event.key === "Escape") this.el.input.value = ""; },
    });
    this.el.entry = h("form.dealer__entry.dealer__row", {
      id: "card-form",
      onsubmit: (event) => {
        event.preventDefault();
        this.reportCard(this.el.input.value);
        this.el.input.value = "";
      },
    }, h("label", { for: "card-input" }, t("dealer.card")), this.el.input,
    h("button.btn.btn--primary", { type: "submit", id: "report" }, t("dealer.report")));
    this.el.void = h("button.btn.btn--void", { type: "button", id: "void", onclick: () => this.voidLast() },
      t("dealer.void"));
    this.el.misdeal = h("button.btn.btn--misdeal", { type: "button", id: "misdeal", onclick: () => this.askMisdeal() },
      t("dealer.misdeal"));
    this.el.confirm = h("button.btn.btn--misdeal", {
      type: "button", id: "misdeal-confirm", hidden: true,
      onclick: () => { this.send({ type: "misdeal" }); this.endMisdealQuestion(); },
    }, t("dealer.confirm_misdeal"));
    this.el.cancel = h("button.btn.btn--ghost", {
      type: "button", id: "misdeal-cancel", hidden: true, onclick: () => this.endMisdealQuestion(),
    }, t("dealer.cancel"));
    this.el.picker = h("div.picker", { id: "picker", role: "group", "aria-label": t("dealer.picker") });
    for (const [suit, pip] of SUITS) {
      for (const rank of RANKS) {
        const card = `${rank}${suit}`;
        this.el.picker.append(h("button.pick", {
          type: "button", dataset: { card, red: String(suit === "h" || suit === "d") },
          "aria-label": t("dealer.report_card", { card: cardLabel(card) }), onclick: () => this.reportCard(card),
        }, `${rank === "T" ? "10" : rank}${pip}`));
      }
    }
    this.el.reports = h("ol.reports", { id: "reports", "aria-label": t("dealer.reports") });
    this.el.rounds = h("tbody", { id: "last-rounds" });

    this.el.work = h("div.dealer__grid", { id: "console", hidden: true },
      h("div", {},
        h("section.dealer__panel", { "aria-label": t("dealer.what_to_deal") },
          h("h2", {}, t("dealer.next")), this.el.expect, this.el.entry,
          h("div.dealer__row", {}, this.el.void, this.el.misdeal, this.el.confirm, this.el.cancel)),
        h("section.dealer__panel", { "aria-label": t("dealer.picker") }, h("h2", {}, t("dealer.pick")), this.el.picker),
        h("section.dealer__panel", { "aria-label": t("dealer.this_round") }, h("h2", {}, t("dealer.this_round")),
          this.el.reports)),
      h("div", {},
        h("section.dealer__panel", { "aria-label": t("dealer.table") },
          h("h2", {}, t("dealer.table")),
          h("div.dealer__row", {}, this.el.phase, this.el.countdown),
          h("p", {}, this.el.round),
          h("p", {}, t("dealer.watching"), " ", this.el.players, " · ", t("dealer.seated"), " ", this.el.seated),
          this.el.stakes),
        h("section.dealer__panel", { "aria-label": t("dealer.last_rounds") },
          h("h2", {}, t("dealer.last_rounds")),
          h("table.dealer__rounds", {},
            h("thead", {}, h("tr", {}, ...["dealer.col.round", "dealer.col.result", "dealer.col.player",
              "dealer.col.dealer", "dealer.col.board"].map((key) => h("th", {}, t(key))))),
            this.el.rounds))));

    this.root.replaceChildren(
      h("header.hud", {}, this.el.title, this.el.connection, h("div.hud__buttons", {}, languageSwitch())),
      this.el.message, this.el.keyForm, this.el.work);
    document.addEventListener("keydown", (event) => this.shortcut(event));
  }

  shortcut(event) {
    const target = event.target;
    if (event.key === "Escape" && !this.el.confirm.hidden) {
      this.endMisdealQuestion();
      return;
    }
    if (target instanceof HTMLInputElement || event.ctrlKey || event.metaKey || event.altKey) return;
    if (this.el.work.hidden) return;
    const key = event.key.toLowerCase();
    if (key === "v") {
      event.preventDefault();
      this.voidLast();
    } else if (key === "m") {
      event.preventDefault();
      this.askMisdeal();
    }
  }

  deadlineLeft() {
    return this.secondsLeft(this.state?.deadline, null);
  }

  tick() {
    if (!this.el) return;
    const left = this.deadlineLeft();
    setText(this.el.countdown, left === null ? "" : String(Math.ceil(left)));
    setAttr(this.el.countdown, "data-urgent", String(left !== null && left > 0 && left <= 5));
  }

  render() {
    const state = this.state;
    if (!state) return;
    this.el.phase.textContent = named(PHASES, state.phase);
    this.el.round.textContent = state.round ? t("dealer.round", { round: state.round }) : t("dealer.no_round");
    this.el.players.textContent = String(state.players ?? "—");
    this.el.seated.textContent = String(state.seated ?? 0);
    const stakes = Object.entries(state.stakes ?? {}).filter(([, amount]) => amount > 0);
    this.el.stakes.textContent = stakes.length
      ? t("dealer.in_play", { stakes: stakes.map(([field, amount]) => `${fieldTitle(field)} ${formatMoney(amount)}`).join(" · ") })
      : t("dealer.no_stakes");
    const expect = state.expect;
    this.el.expect.dataset.idle = String(!expect);
    this.el.expect.textContent = expect
      ? t("dealer.expect", { count: expect.cards, to: named(PLACES, expect.to).toLocaleUpperCase(document.documentElement.lang),
        street: named(STREETS, expect.street) })
      : state.misdeal ? t("dealer.misdeal_cancelled") : t("dealer.nothing");
    const inRound = new Set((state.reports ?? []).filter((r) => !r.voided).map((r) => r.card));
    for (const button of this.el.picker.children) button.disabled = !expect || inRound.has(button.dataset.card);
    this.el.void.disabled = !state.can_void;
    this.el.misdeal.disabled = !state.can_misdeal;
    this.el.confirm.disabled = !state.can_misdeal;
    this.el.reports.replaceChildren(...(state.reports ?? []).map((report) => h("li.report", {
      dataset: { card: report.card, voided: String(report.voided), to: report.to },
      "aria-label": t(report.voided ? "dealer.report_voided" : "dealer.report_to",
        { card: cardLabel(report.card), to: named(PLACES, report.to) }),
    }, cardElement(report.card, { small: true }), h("span.report__to", {}, named(PLACES, report.to)),
    h("span.report__source", {}, named(SOURCES, report.source)))));
    this.el.rounds.replaceChildren(...(state.last_rounds ?? []).map((past) => h("tr", { dataset: { round: past.round } },
      h("td", {}, String(past.number)), h("td", {}, named(STATUSES, past.status)),
      h("td", {}, past.player.join(" ")), h("td", {}, past.dealer.join(" ")), h("td", {}, past.board.join(" ")))));
    this.tick();
  }

  say(text, kind = "info") {
    this.el.message.textContent = text;
    this.el.message.dataset.kind = kind;
  }
}

const root = document.getElementById("app");
const tableId = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
launch(); // remembers ?lang= as the players' pages do
useLanguage(preferredLanguage(LANGUAGE_KEY)).catch(() => {}).finally(() => {
  if (!tableId) {
    root.replaceChildren(h("p.message", { dataset: { kind: "error" } }, t("dealer.no_table")));
    return;
  }
  const dealerConsole = new DealerConsole(root, tableId);
  window.dealerpokerDealer = dealerConsole; // for the browser tests and the curious
  dealerConsole.start();
});
