/**
 * dealerpoker-frame.js: the casino's side of the page events (docs/operators.md#page-events).
 *
 * Load it in the page that frames a dealerpoker table (a classic script, no build step):
 *
 *   <script src="https://games.example/js/dealerpoker-frame.js"></script>
 *   <script>
 *     const frame = DealerPokerFrame.connect(document.querySelector("iframe"), {
 *       origin: "https://games.example",          // dealerpoker's origin: nothing else is listened to
 *       on: { round_ended: (e) => console.log("net", e.net), balance: (e) => showBalance(e.balance) },
 *     });
 *     frame.pause();                              // the round in play finishes, then the table holds
 *   </script>
 *
 * dealerpoker posts only to the origins of the operator's `frame_ancestors` (the operators
 * file), and obeys only messages from them. Each message is `{source: "dealerpoker", version: 1,
 * type, ...}`. Amounts are integers in the player's currency's minor units.
 *
 * @typedef {"ready"|"round_started"|"round_ended"|"balance"|"reality_check"|"error"|"paused"|"resumed"|"navigate"} EventType
 * @typedef {{source: "dealerpoker", version: 1, type: "ready", game: string, balance: number|null, currency: string|null}} ReadyEvent
 *   the table is loaded and its session open
 * @typedef {{source: "dealerpoker", version: 1, type: "round_started", round_id: string, game: string, stake: number, free: boolean}} RoundStartedEvent
 *   a round was dealt: the player's stake so far (a free round's ante excluded)
 * @typedef {{source: "dealerpoker", version: 1, type: "round_ended", round_id: string, game: string, stake: number, returned: number, net: number}} RoundEndedEvent
 *   a round settled: its stakes, return and net (returned - stake) for the player
 * @typedef {{source: "dealerpoker", version: 1, type: "balance", balance: number}} BalanceEvent
 *   the player's balance as the table shows it now (the operator's wallet's, for a real player)
 * @typedef {{source: "dealerpoker", version: 1, type: "reality_check", minutes: number, staked: number, net: number}} RealityCheckEvent
 *   the reality check is shown to the player (session minutes, staked, net)
 * @typedef {{source: "dealerpoker", version: 1, type: "error", code: string, message: string}} ErrorEvent
 *   the table showed the player an error (a refused bet, a lost connection...)
 * @typedef {{source: "dealerpoker", version: 1, type: "paused"|"resumed"}} HoldEvent
 *   the table holds (after `pause`, once the round in play ended) or plays again (`resume`)
 * @typedef {{source: "dealerpoker", version: 1, type: "navigate", to: "lobby"|"cashier", url: string}} NavigateEvent
 *   the table sends the player to the launch's lobby_url or cashier_url; a browser may refuse a
 *   frame's navigation of the whole window, so the page follows it itself (see `navigate` below)
 *
 * Requests to the table: pause(), resume(), sound(on), lobby(), cashier().
 */
(function (global) {
  "use strict";

  var SOURCE = "dealerpoker";
  var VERSION = 1;

  /**
   * @param {HTMLIFrameElement} iframe the frame of the dealerpoker table
   * @param {{origin: string, on?: Object<string, function(Object): void>, navigate?: function(NavigateEvent): void}} options
   *   `origin`: dealerpoker's origin (scheme://host[:port]); `on`: a handler per event type
   *   ("*": every event); `navigate`: what a navigate event does (default: the window follows the
   *   url when it is of this page's own origin, else nothing)
   */
  function connect(iframe, options) {
    if (!iframe || !options || typeof options.origin !== "string") {
      throw new TypeError("DealerPokerFrame.connect(iframe, {origin}) needs the frame and dealerpoker's origin");
    }
    var origin = new URL(options.origin).origin;
    var handlers = {};
    var on = options.on || {};
    Object.keys(on).forEach(function (type) { (handlers[type] = handlers[type] || []).push(on[type]); });
    var navigate = options.navigate || function (event) {
      if (new URL(event.url, global.location.href).origin === global.location.origin) global.location.assign(event.url);
    };

    function receive(event) {
      if (event.origin !== origin || event.source !== iframe.contentWindow) return;
      var message = event.data;
      if (!message || typeof message !== "object" || message.source !== SOURCE) return;
      (handlers[message.type] || []).concat(handlers["*"] || []).forEach(function (handler) { handler(message); });
      if (message.type === "navigate") navigate(message);
    }
    global.addEventListener("message", receive);

    function send(type, fields) {
      var message = { source: SOURCE, version: VERSION, type: type };
      Object.keys(fields || {}).forEach(function (key) { message[key] = fields[key]; });
      if (iframe.contentWindow) iframe.contentWindow.postMessage(message, origin);
    }

    return {
      /** Adds a handler for an event type ("*": every event). */
      on: function (type, handler) { (handlers[type] = handlers[type] || []).push(handler); },
      /** The round in play finishes, then the table takes no new round until resume(). */
      pause: function () { send("pause"); },
      resume: function () { send("resume"); },
      /** @param {boolean} on */
      sound: function (on) { send("sound", { on: Boolean(on) }); },
      /** The player goes to the launch's lobby_url (the whole window). */
      lobby: function () { send("lobby"); },
      /** The player goes to the launch's cashier_url (the whole window). */
      cashier: function () { send("cashier"); },
      /** Stops listening. */
      close: function () { global.removeEventListener("message", receive); },
    };
  }

  global.DealerPokerFrame = { connect: connect, SOURCE: SOURCE, VERSION: VERSION };
})(window);
