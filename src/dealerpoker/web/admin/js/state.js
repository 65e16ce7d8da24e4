// Who is signed in (the answer of GET /admin/api/session) and the texts of errors.

import { t } from "/js/i18n.js";
import { AdminError } from "./http.js";

export const session = { me: null };

export function can(permission) {
  return Boolean(session.me?.permissions.includes(permission));
}

export function errorText(error) {
  if (error instanceof AdminError && error.status === 403 && error.code === "forbidden") {
    return t("admin.error.forbidden");
  }
  if (error instanceof AdminError && error.status === 401 && error.code === "unauthorized") {
    return t("admin.error.unauthorized");
  }
  if (error instanceof AdminError && error.code !== "connection") {
    const key = `error.code.${error.code}`;
    const text = t(key);
    if (text === key) return error.message;
    const same = (a) => a.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
    // the server's own words only where they add something (not "Wrong name. (wrong name)")
    return error.message && same(error.message) !== same(text) ? `${text} (${error.message})` : text;
  }
  return t("admin.error.connection");
}
