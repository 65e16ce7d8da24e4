// Every request of the back office (endpoints: docs/backoffice.md). The session is an HttpOnly
// cookie the page never sees; every change sends the CSRF token the sign-in answered.

let csrf = null;

export class AdminError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function setCsrf(token) {
  csrf = token;
}

export async function request(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && csrf) headers["X-CSRF-Token"] = csrf;
  let response;
  try {
    response = await fetch(`/admin/api${path}`, {
      method, headers, credentials: "same-origin", cache: "no-store",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new AdminError(0, "connection", "");
  }
  const type = response.headers.get("content-type") ?? "";
  const payload = type.includes("json") ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) {
    throw new AdminError(response.status, payload?.error ?? `http-${response.status}`, payload?.message ?? "");
  }
  return payload;
}

export const get = (path) => request("GET", path);
export const post = (path, body) => request("POST", path, body ?? {});

/** "?a=1&b=2" from the non-empty values of an object. */
export function query(values) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, value);
  }
  const text = params.toString();
  return text ? `?${text}` : "";
}
