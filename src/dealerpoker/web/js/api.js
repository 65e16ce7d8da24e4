// Every REST call of the page (the protocol: docs/api.md); socket.js opens the live tables' WebSockets.
// The session token lives in sessionStorage: it survives a reload of the tab (and the lobby's
// links to a table, in the same tab) but not the tab, so nothing keeps it once the tab is closed;
// the server expires it when idle or old anyway (docs/api.md, "Sessions"). A missing or rejected
// token gets a new session.

import { rememberLaunch } from "./locale.js";

const TOKEN_KEY = "dealerpoker.token";

export class ApiError extends Error {
  constructor(code, message, status = 0, payload = null) {
    super(message);
    this.code = code;
    this.status = status;
    this.payload = payload ?? {};
  }

  /** True when the server was not reached at all (as opposed to refusing the request). */
  get lostConnection() {
    return this.code === "connection";
  }
}

async function send(method, path, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store",
    });
  } catch {
    throw new ApiError("connection", "Lost connection to the server. Check that it is running, then try again.");
  }
  let payload = null;
  try {
    payload = await response.json();
  } catch {
    payload = null;
  }
  if (!response.ok) {
    const code = payload?.error ?? `http-${response.status}`;
    const message = payload?.message ?? describeDetail(payload?.detail) ?? `The server answered ${response.status}.`;
    throw new ApiError(code, message, response.status, payload);
  }
  return payload;
}

function describeDetail(detail) {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) return detail.map((d) => d.msg ?? JSON.stringify(d)).join("; ");
  return null;
}

export function newIdempotencyKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The one-time `?launch=` token of an operator's launch address, once (it is removed from the address). */
function takeLaunchToken() {
  if (typeof location === "undefined") return null;
  const query = new URLSearchParams(location.search);
  const launch = query.get("launch");
  if (!launch) return null;
  query.delete("launch");
  const rest = query.toString();
  history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
  return launch;
}

export class Api {
  constructor(storage = window.sessionStorage) {
    this.storage = storage;
    this.currency = null; // a new demo player's currency (the launch's), else the server's default
  }

  get token() {
    return this.storage.getItem(TOKEN_KEY);
  }

  async ensureSession() {
    const launch = takeLaunchToken();
    if (launch) {  // an operator's launch: this page plays as that operator's player
      const launched = await send("POST", "/api/session", { launch });
      this.storage.setItem(TOKEN_KEY, launched.token);
      rememberLaunch({ lobby_url: launched.lobby_url ?? null, cashier_url: launched.cashier_url ?? null,
                       frame_origins: launched.frame_origins ?? [] });
      return launched.token;
    }
    if (this.token) return this.token;
    const session = await send("POST", "/api/session", this.currency ? { currency: this.currency } : {});
    this.storage.setItem(TOKEN_KEY, session.token);
    return session.token;
  }

  /** An authenticated request; a rejected token (401) is replaced by a new session once. */
  async call(method, path, body) {
    const token = await this.ensureSession();
    try {
      return await send(method, path, body, token);
    } catch (error) {
      if (error.status !== 401) throw error;
      this.storage.removeItem(TOKEN_KEY);
      return send(method, path, body, await this.ensureSession());
    }
  }

  /** A new session (a new demo player) in `currency`: the launch asked for another currency. */
  async restart(currency) {
    this.currency = currency;
    this.storage.removeItem(TOKEN_KEY);
    return this.ensureSession();
  }

  games(currency) {
    return this.call("GET", `/api/games${currency ? `?currency=${encodeURIComponent(currency)}` : ""}`);
  }
  balance() { return this.call("GET", "/api/balance"); }
  round(id) { return this.call("GET", `/api/rounds/${encodeURIComponent(id)}`); }
  replay(id) { return this.call("GET", `/api/rounds/${encodeURIComponent(id)}/replay`); }

  rounds({ status, limit, before } = {}) {
    const query = new URLSearchParams();
    if (status) query.set("status", status);
    if (limit) query.set("limit", String(limit));
    if (before) query.set("before", String(before));
    const suffix = query.toString() ? `?${query}` : "";
    return this.call("GET", `/api/rounds${suffix}`);
  }

  /** `jackpot`: add the progressive jackpot bet (GET /api/jackpot: its stake in the player's currency);
   *  `freeRound`: one of the player's free rounds (GET /api/free-rounds): its ante is the operator's. */
  deal(game, bets, idempotencyKey, { jackpot = false, freeRound = null } = {}) {
    return this.call("POST", "/api/rounds", {
      game, bets, idempotency_key: idempotencyKey, ...(jackpot ? { jackpot } : {}),
      ...(freeRound ? { free_round: freeRound } : {}),
    });
  }

  /** The jackpot bet and its pool now (GET /api/jackpot; 422 jackpot_not_offered without one). */
  jackpot() {
    return this.call("GET", "/api/jackpot");
  }

  /** The player's free rounds playable now in `game` (an operator's campaign; none elsewhere). */
  freeRounds(game) {
    return this.call("GET", `/api/free-rounds?game=${encodeURIComponent(game)}`);
  }

  /** `step` (the round's len(steps), required) makes a retry after a lost connection safe: no double action. */
  act(roundId, action, step) {
    return this.call("POST", `/api/rounds/${encodeURIComponent(roundId)}/actions`, { action, step });
  }
}
