// The studio's dealer console (/dealer.html#/{table}): what the table needs next, a 52-card picker
// and keyboard entry ("Ah", Enter), VOID and MISDEAL, the round's card reports and the last rounds.
// It renders what the server sends over /ws/dealer/{table} and sends the dealer's reports; the
// server decides everything (what is expected, what is refused, the timers).
//
// Keyboard alone: the card field has the focus (type "Ah", Enter); Tab reaches every button;
// outside the card field, V voids the last card and M asks for a misdeal (Enter confirms, Esc
// cancels).

import { cardElement } from "./cards.js";
import { fieldTitle, h } from "./dom.js";
import { useLanguage } from "./i18n.js";
import { formatMoney } from "./money.js";

const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A"];
const SUITS = [["s", "♠"], ["h", "♥"], ["d", "♦"], ["c", "♣"]];
const PHASES = {
  idle: "Waiting for players", betting: "Betting", closed: "No more bets", dealing: "Deal",
  decision: "Players deciding", showdown: "Showdown", pause: "Round over",
};
const KEY_PREFIX = "dealerpoker.dealer-key.";

export class DealerConsole {
  constructor(root, tableId, storage = window.sessionStorage) {
    this.root = root;
    this.tableId = tableId;
    this.storage = storage;
    this.config = null;
    this.state = null;
    this.skew = 0; // server clock - our clock (seconds)
    this.socket = null;
    this.closed = false;
    this.retries = 0;
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
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/dealer/${encodeURIComponent(this.tableId)}`);
    this.socket = socket;
    this.el.connection.textContent = "Connecting…";
    socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "auth", token: this.key })));
    socket.addEventListener("message", (event) => this.receive(JSON.parse(event.data)));
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      this.el.connection.textContent = "Disconnected";
      if (this.closed || event.code === 4401 || event.code === 4404) return;
      this.retries += 1;
      setTimeout(() => { if (!this.closed && this.socket === socket) this.connect(); },
        Math.min(5000, 500 * this.retries));
    });
  }

  send(message) {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
    else this.say("Not connected: nothing was sent.", "error");
  }

  receive(message) {
    if (typeof message.sent_at === "number") this.skew = message.sent_at - Date.now() / 1000;
    switch (message.type) {
      case "welcome":
        this.retries = 0;
        this.config = message.table;
        this.el.title.textContent = `Dealer console — ${message.table.title}`;
        document.title = `Dealer — ${message.table.title}`;
        this.el.connection.textContent = "Connected";
        this.el.keyForm.hidden = true;
        this.el.work.hidden = false;
        this.el.input.focus();
        break;
      case "dealer":
        this.state = message;
        if (message.event === "misdeal" && message.misdeal?.by === "timer") {
          this.say(`Misdeal: ${message.misdeal.reason}.`, "error");
        }
        break;
      case "expect":
        break; // the dealer message beside it carries the same expectation
      case "accepted":
        this.say(message.what === "misdeal" ? "Misdeal called: the round is cancelled."
          : message.what === "void" ? `Voided ${message.card}.` : `Reported ${message.card}.`, "info");
        break;
      case "error":
        this.say(message.message, "error");
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
    this.el.title = h("h1.hud__title", { id: "dealer-title" }, `Dealer console — ${this.tableId}`);
    this.el.connection = h("span", { id: "connection", role: "status" }, "Not connected");
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
    }, h("label", { for: "dealer-key" }, "Dealer key "), this.el.keyInput, " ",
    h("button.btn.btn--primary", { type: "submit", id: "connect" }, "CONNECT"));

    this.el.phase = h("span.live__phase", { id: "dealer-phase" }, "—");
    this.el.countdown = h("output.dealer__countdown", { id: "dealer-countdown", "aria-label": "Seconds left" }, "");
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
    }, h("label", { for: "card-input" }, "Card"), this.el.input,
    h("button.btn.btn--primary", { type: "submit", id: "report" }, "REPORT"));
    this.el.void = h("button.btn.btn--void", { type: "button", id: "void", onclick: () => this.voidLast() }, "VOID (V)");
    this.el.misdeal = h("button.btn.btn--misdeal", { type: "button", id: "misdeal", onclick: () => this.askMisdeal() },
      "MISDEAL (M)");
    this.el.confirm = h("button.btn.btn--misdeal", {
      type: "button", id: "misdeal-confirm", hidden: true,
      onclick: () => { this.send({ type: "misdeal" }); this.endMisdealQuestion(); },
    }, "CONFIRM MISDEAL");
    this.el.cancel = h("button.btn.btn--ghost", {
      type: "button", id: "misdeal-cancel", hidden: true, onclick: () => this.endMisdealQuestion(),
    }, "CANCEL");
    this.el.picker = h("div.picker", { id: "picker", role: "group", "aria-label": "Card picker" });
    for (const [suit, pip] of SUITS) {
      for (const rank of RANKS) {
        const card = `${rank}${suit}`;
        this.el.picker.append(h("button.pick", {
          type: "button", dataset: { card, red: String(suit === "h" || suit === "d") },
          "aria-label": `Report ${card}`, onclick: () => this.reportCard(card),
        }, `${rank === "T" ? "10" : rank}${pip}`));
      }
    }
    this.el.reports = h("ol.reports", { id: "reports", "aria-label": "Cards reported this round" });
    this.el.rounds = h("tbody", { id: "last-rounds" });

    this.el.work = h("div.dealer__grid", { id: "console", hidden: true },
      h("div", {},
        h("section.dealer__panel", { "aria-label": "What to deal" },
          h("h2", {}, "Next"), this.el.expect, this.el.entry,
          h("div.dealer__row", {}, this.el.void, this.el.misdeal, this.el.confirm, this.el.cancel)),
        h("section.dealer__panel", { "aria-label": "Card picker" }, h("h2", {}, "Pick a card"), this.el.picker),
        h("section.dealer__panel", { "aria-label": "This round" }, h("h2", {}, "This round"), this.el.reports)),
      h("div", {},
        h("section.dealer__panel", { "aria-label": "Table" },
          h("h2", {}, "Table"),
          h("div.dealer__row", {}, this.el.phase, this.el.countdown),
          h("p", {}, this.el.round),
          h("p", {}, "Players ", this.el.players, " · seated ", this.el.seated),
          this.el.stakes),
        h("section.dealer__panel", { "aria-label": "Last rounds" },
          h("h2", {}, "Last rounds"),
          h("table.dealer__rounds", {},
            h("thead", {}, h("tr", {}, ...["Round", "Result", "Player", "Dealer", "Board"].map((t) => h("th", {}, t)))),
            this.el.rounds))));

    this.root.replaceChildren(
      h("header.hud", {}, this.el.title, this.el.connection),
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
    const deadline = this.state?.deadline;
    if (typeof deadline !== "number") return null;
    return Math.max(0, deadline - (Date.now() / 1000 + this.skew));
  }

  tick() {
    if (!this.el) return;
    const left = this.deadlineLeft();
    this.el.countdown.textContent = left === null ? "" : String(Math.ceil(left));
    this.el.countdown.dataset.urgent = String(left !== null && left > 0 && left <= 5);
  }

  render() {
    const state = this.state;
    if (!state) return;
    this.el.phase.textContent = PHASES[state.phase] ?? state.phase;
    this.el.round.textContent = state.round ? `Round ${state.round}` : "No round yet";
    this.el.players.textContent = String(state.players ?? "—");
    this.el.seated.textContent = String(state.seated ?? 0);
    const stakes = Object.entries(state.stakes ?? {}).filter(([, amount]) => amount > 0);
    this.el.stakes.textContent = stakes.length
      ? `In play: ${stakes.map(([field, amount]) => `${fieldTitle(field)} ${formatMoney(amount)}`).join(" · ")}`
      : "No stakes in play";
    const expect = state.expect;
    this.el.expect.dataset.idle = String(!expect);
    this.el.expect.textContent = expect
      ? `Deal ${expect.cards} card${expect.cards === 1 ? "" : "s"} to the ${expect.to.toUpperCase()} (${expect.street})`
      : state.misdeal ? "Misdeal: round cancelled" : "Nothing to deal now";
    const inRound = new Set((state.reports ?? []).filter((r) => !r.voided).map((r) => r.card));
    for (const button of this.el.picker.children) button.disabled = !expect || inRound.has(button.dataset.card);
    this.el.void.disabled = !state.can_void;
    this.el.misdeal.disabled = !state.can_misdeal;
    this.el.confirm.disabled = !state.can_misdeal;
    this.el.reports.replaceChildren(...(state.reports ?? []).map((report) => h("li.report", {
      dataset: { card: report.card, voided: String(report.voided), to: report.to },
      "aria-label": `${report.card} to the ${report.to}${report.voided ? " (voided)" : ""}`,
    }, cardElement(report.card, { small: true }), h("span.report__to", {}, report.to),
    h("span.report__source", {}, report.source))));
    this.el.rounds.replaceChildren(...(state.last_rounds ?? []).map((past) => h("tr", { dataset: { round: past.round } },
      h("td", {}, String(past.number)), h("td", {}, past.status),
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
if (!tableId) {
  root.replaceChildren(h("p.message", { dataset: { kind: "error" } },
    "No table chosen: open /dealer.html#/<table id>."));
} else {
  const dealerConsole = new DealerConsole(root, tableId);
  window.dealerpokerDealer = dealerConsole; // for the browser tests and the curious
  // The console is the studio staff's, in English; its cards are named from the catalogue.
  useLanguage("en").catch(() => {}).finally(() => dealerConsole.start());
}
