// The progressive jackpot on the player's pages: the pool's ticker (GET /api/jackpot once, then
// /ws/jackpot, which sends the pool each time it changes, the same figure on every table and
// server), written in the player's currency at the jackpot's rates; and the solo table's switch
// that adds the jackpot bet to each deal.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { formatMoney, moneyFormat } from "./money.js";

const POLL_MS = 5000; // GET /api/jackpot's pace where the WebSocket cannot open

/** The pool in the player's currency (null: the bet is not offered in it). */
export function poolIn(document) {
  const amount = document?.in_currency?.[moneyFormat().code];
  return typeof amount === "number" ? amount : null;
}

/** A HUD meter showing the pool, kept current over /ws/jackpot (hidden when there is no jackpot).
 *  Where the WebSocket never opens (a proxy without WebSockets), it asks GET /api/jackpot instead. */
export function jackpotMeter() {
  const value = h("output.meter__value", { id: "jackpot-pool", "aria-labelledby": "jackpot-pool-label" }, "—");
  const meter = h("div.meter.meter--jackpot", { id: "jackpot-meter", hidden: true },
    h("span.meter__label", { id: "jackpot-pool-label" }, t("meter.jackpot")), value);
  let retries = 0;
  let opened = false;
  const show = (document) => {
    const pool = poolIn(document);
    meter.hidden = pool === null;
    if (pool !== null) value.textContent = formatMoney(pool);
  };
  const poll = async () => {
    if (!meter.isConnected) return; // the page moved on
    try {
      const answer = await fetch("/api/jackpot");
      if (answer.ok) show(await answer.json());
      else if (answer.status === 422) return; // no jackpot here
    } catch {
      // offline for now: the next poll tries again
    }
    setTimeout(poll, POLL_MS);
  };
  const open = () => {
    if (retries > 0 && !meter.isConnected) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}/ws/jackpot`);
    socket.addEventListener("open", () => { opened = true; });
    socket.addEventListener("message", (event) => { retries = 0; show(JSON.parse(event.data)); });
    socket.addEventListener("close", (event) => {
      if (event.code === 4404 || !meter.isConnected) return; // no jackpot here, or the page is gone
      retries += 1;
      if (!opened && retries >= 3) return void poll();
      setTimeout(open, Math.min(5000, 500 * retries));
    });
  };
  open();
  return meter;
}

/** The solo table's switch for the jackpot bet: `state.on` says whether the next deal adds it. */
export function jackpotSwitch(api, state) {
  const button = h("button.btn.btn--ghost.jackpot-switch", {
    type: "button", id: "jackpot-switch", hidden: true, "aria-pressed": "false",
    onclick: () => {
      state.on = !state.on;
      button.setAttribute("aria-pressed", String(state.on));
      button.classList.toggle("is-on", state.on);
    },
  }, t("btn.jackpot"));
  api.jackpot?.().then((document) => {
    const stake = document?.stake?.[moneyFormat().code];
    if (typeof stake !== "number") return;
    button.textContent = t("btn.jackpot_stake", { stake: formatMoney(stake) });
    button.title = t("help.jackpot", { stake: formatMoney(stake), hand: t(`category.${document.pool_category}`) });
    button.hidden = false;
  }).catch(() => {});
  return button;
}

/** What the jackpot bet of a round view did, as a line for the status (null: no bet, or open). */
export function jackpotLine(view) {
  const bet = view?.jackpot;
  if (!bet || bet.status === "open") return null;
  const hand = t(`category.${bet.hand}`);
  if (bet.status === "won") {
    return t(bet.pool_award ? "play.jackpot_won_pool" : "play.jackpot_won", { hand, amount: formatMoney(bet.award) });
  }
  return t("play.jackpot_lost", { hand });
}
