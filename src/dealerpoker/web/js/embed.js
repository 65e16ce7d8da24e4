// The game inside a casino's page (docs/operators.md#page-events): what happens is posted to the
// parent frame, and the parent's requests are obeyed. Messages go only to the origins of the
// player's operator (its `frame_ancestors`, which the launched session names): a parent of any
// other origin receives nothing (the browser drops a message whose target origin is not the
// parent's) and is not listened to. Outside a frame, or for a player no operator launched, it
// does nothing.
//
// Every message is an object {source: "dealerpoker", version: 1, type, ...fields}:
//   posted:  ready, round_started, round_ended (net), balance, reality_check, error,
//            paused, resumed, navigate (lobby/cashier: the address, for the parent to follow
//            if the browser refused the frame's own navigation)
//   obeyed:  pause, resume, sound {on}, lobby, cashier
// The casino's side of it, documented and typed: js/dealerpoker-frame.js.

import { launch } from "./locale.js";

export const SOURCE = "dealerpoker";
export const VERSION = 1;

const listeners = new Set();
let started = false;

function framed() {
  try {
    return window.parent !== window;
  } catch {
    return true;
  }
}

/** The origins this page may talk to (the launch's operator's), none outside a frame. */
export function parentOrigins() {
  if (!framed()) return [];
  const origins = launch().frame_origins;
  return Array.isArray(origins) ? origins.filter((o) => typeof o === "string" && /^https?:\/\//.test(o)) : [];
}

/** Posts `type` with `fields` to the parent frame, at each allowed origin (only the parent's is delivered). */
export function emit(type, fields = {}) {
  for (const origin of parentOrigins()) {
    try {
      window.parent.postMessage({ source: SOURCE, version: VERSION, type, ...fields }, origin);
    } catch {
      // A malformed origin in the settings: nothing is sent there.
    }
  }
}

/** `handler(type, message)` is called for each request of the parent (pause, resume, sound, lobby, cashier). */
export function onParent(handler) {
  listeners.add(handler);
  if (!started) {
    started = true;
    window.addEventListener("message", (event) => {
      if (event.source !== window.parent || !parentOrigins().includes(event.origin)) return;
      const message = event.data;
      if (!message || typeof message !== "object" || message.source !== SOURCE) return;
      if (!["pause", "resume", "sound", "lobby", "cashier"].includes(message.type)) return;
      for (const listener of listeners) listener(message.type, message);
    });
  }
  return () => listeners.delete(handler);
}

/** Sends the whole window to the launch's lobby or cashier address (`to`: "lobby" | "cashier"). */
export function leaveTo(to) {
  const url = launch()[`${to}_url`];
  if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
    emit("error", { code: "no_address", message: `the launch gave no ${to} address` });
    return false;
  }
  emit("navigate", { to, url });
  try {
    window.top.location.assign(url);
  } catch {
    // A browser may refuse a frame's navigation of the top window: the parent follows "navigate".
  }
  return true;
}
