// The progressive jackpot on the player's pages: the pool's ticker (GET /api/jackpot once, then
// /ws/jackpot, which sends the pool each time it changes, the same figure on every table and
// server), written in the player's currency at the jackpot's rates; and the tables' switch that
// adds the jackpot bet to each deal (solo) or to the player's bets of each round (live).
// Neither shows where the player's jurisdiction profile says `jackpots = false` (allowJackpots).

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

/** Whether the player's jurisdiction allows the jackpot (its profile's `jackpots`; a server
 *  without profiles: allowed). Every ticker and switch of the page follows it (casino.css hides
 *  them until the profile is known and where it says false); the server refuses the bet anyway. */
export function allowJackpots(profile) {
  document.body.dataset.jackpots = profile?.settings?.jackpots?.value === false ? "off" : "on";
}

/** The solo tables' offer: GET /api/jackpot's stake in the player's currency (null: none in it). */
export function soloOffer(api) {
  return (api.jackpot?.() ?? Promise.resolve(null)).then((document) => {
    const stake = document?.stake?.[moneyFormat().code];
    return typeof stake === "number" ? { stake, pool_category: document.pool_category } : null;
  });
}

/** Draw the switch as on or off. */
export function markSwitch(button, on) {
  button.setAttribute("aria-pressed", String(on));
  button.classList.toggle("is-on", on);
}

/** The switch for the jackpot bet: `state.on` says whether the next bets add it. `offer`: a
 *  promise of `{stake, pool_category}` in the table's currency, or of null where the table offers
 *  none (the switch stays hidden); `onChange(on)`: called after each press. */
export function jackpotSwitch(offer, state, onChange = () => {}) {
  const button = h("button.btn.btn--ghost.jackpot-switch", {
    type: "button", id: "jackpot-switch", hidden: true, "aria-pressed": "false",
    onclick: () => {
      state.on = !state.on;
      markSwitch(button, state.on);
      onChange(state.on);
    },
  }, t("btn.jackpot"));
  markSwitch(button, state.on);
  Promise.resolve(offer).then((bet) => {
    if (typeof bet?.stake !== "number") return;
    button.textContent = t("btn.jackpot_stake", { stake: formatMoney(bet.stake) });
    button.title = t("help.jackpot", { stake: formatMoney(bet.stake), hand: t(`category.${bet.pool_category}`) });
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

/** The status line with what the round's jackpot bet did, once it is settled. */
export function withJackpot(view, text) {
  const line = jackpotLine(view);
  return line ? `${text} · ${line}` : text;
}
