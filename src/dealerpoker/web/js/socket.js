// The WebSocket of a live table, shared by the live page (/ws/tables/{id}) and the studio's dealer
// console (/ws/dealer/{id}): opened on this page's host, authenticated by a first
// {"type": "auth"} message (docs/api.md), every message handed on as JSON, sent only while open.

/** Opens `path` and authenticates with `token`; `onMessage(message)` for each message,
 *  `onClose(event)` when it closes (the caller decides whether to reconnect). */
export function openSocket(path, token, { onMessage, onClose }) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}${path}`);
  socket.addEventListener("open", () => socket.send(JSON.stringify({ type: "auth", token })));
  socket.addEventListener("message", (event) => onMessage(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => onClose(event));
  return socket;
}

/** Sends `message` if `socket` is open; whether it was sent. */
export function sendMessage(socket, message) {
  if (socket?.readyState !== WebSocket.OPEN) return false;
  socket.send(JSON.stringify(message));
  return true;
}

/** How long to wait before the `retries`-th reconnection, in milliseconds (at most 5 s). */
export function reconnectDelay(retries) {
  return Math.min(5000, 500 * retries);
}
