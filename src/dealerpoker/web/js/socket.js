// What the live page's table and the studio's dealer console share: their WebSocket to the table
// (players' /ws/tables/{id}, the dealer's /ws/dealer/{id}), opened on this page's host and
// authenticated by a first {"type": "auth"} message (docs/api.md); what they send on it; the
// server's clock its messages tell; the wait before reconnecting.

import { t } from "./i18n.js";

/** A subclass has `receive(message)` (each message from the server) and `say(text, kind)`. */
export class TableSocketClient {
  /** `notSent`: the catalogue key said when a message cannot be sent (the socket is not open). */
  constructor(notSent) {
    this.notSent = notSent;
    this.socket = null;
    this.skew = 0; // server clock - our clock (seconds)
    this.retries = 0;
    this.closed = false;
  }

  /** Opens `path` and authenticates with `token`; `onClose(event)` when it closes. */
  openSocket(path, token, onClose) {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}${path}`);
    this.socket = socket;
    socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "auth", token })));
    socket.addEventListener("message", (event) => this.heard(JSON.parse(event.data)));
    socket.addEventListener("close", onClose);
    return socket;
  }

  /** A message from the server: its clock noted (a welcome ends the retries), then `receive`. */
  heard(message) {
    if (typeof message.sent_at === "number") this.skew = message.sent_at - Date.now() / 1000;
    if (message.type === "welcome") this.retries = 0;
    this.receive(message);
  }

  /** Sends `message`; false (and the player is told) when the socket is not open. */
  send(message) {
    if (this.socket?.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    this.say(t(this.notSent), "error");
    return false;
  }

  /** `reconnect()` after a wait that grows with each attempt (0.5 s, 1 s... at most 5 s). */
  retry(reconnect) {
    this.retries += 1;
    setTimeout(reconnect, Math.min(5000, 500 * this.retries));
  }

  /** The seconds left until the server's `deadline` by the server's clock (`none` without one). */
  secondsLeft(deadline, none) {
    if (typeof deadline !== "number") return none;
    return Math.max(0, deadline - (Date.now() / 1000 + this.skew));
  }
}
