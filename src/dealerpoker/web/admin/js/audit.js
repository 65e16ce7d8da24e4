// The admin audit log: every change made in the back office, newest first (admins, auditors),
// and the check of the hash-chained logs (the same as `dealerpoker audit-log verify`).

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { table } from "./format.js";
import { get, query } from "./http.js";

function json(value) {
  return value === null || value === undefined ? "" : JSON.stringify(value);
}

/** {a: {b: 1}, c: 2} -> {"a.b": 1, c: 2}: each changed leaf named by its path. */
function flat(value, prefix = "", into = {}) {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flat(inner, prefix ? `${prefix}.${key}` : key, into);
  } else if (prefix) {
    into[prefix] = value;
  }
  return into;
}

function shown(value) {
  if (value === undefined) return "—";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The change as a person reads it: each entry that changed, "name: before → after" (the JSON as
 *  written stays one click away). */
function change(entry) {
  const before = flat(entry.before ?? {});
  const after = flat(entry.after ?? {});
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const lines = names.filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]))
    .map((name) => h("li", {}, h("b", {}, name), ": ", entry.before == null ? "" : `${shown(before[name])} → `,
      shown(after[name])));
  return h("td.change", {}, h("ul", {}, ...lines),
    h("details", {}, h("summary", {}, t("admin.audit.as_written")),
      h("pre.code", {}, `${t("admin.audit.before")}: ${json(entry.before)}\n${t("admin.audit.after")}: ${json(entry.after)}`)));
}

function chainResult(logs) {
  return h("ul.chain-check", {}, ...logs.map((log) => h(`li.${log.ok ? "ok" : "failed"}`,
    { "data-table": log.table },
    h("strong", {}, `${log.table}: ${log.ok ? t("admin.audit.chain_ok") : t("admin.audit.chain_failed")}`),
    ` ${t("admin.audit.chain_rows", { rows: log.rows })}`,
    log.head_id === null ? "" : h("span.code", {}, ` ${t("admin.audit.chain_head")} ${log.head_id}:${log.head_hash}`),
    log.problems.length ? h("ul", {}, ...log.problems.map((problem) => h("li", {}, problem))) : "")));
}

export async function auditPage(container) {
  const action = h("input", { name: "action", placeholder: t("admin.audit.action") });
  const results = h("div.results");
  const chain = h("div.chain", { "aria-live": "polite" });
  async function load() {
    const { entries } = await get(`/audit${query({ action: action.value, limit: 200 })}`);
    results.replaceChildren(entries.length === 0 ? h("p", {}, t("admin.audit.empty")) : table(
      [t("admin.audit.at"), t("admin.audit.actor"), t("admin.audit.action"), t("admin.audit.target"),
        t("admin.audit.change")],
      entries.map((entry) => h("tr", {}, h("td", {}, entry.at), h("td", {}, entry.actor),
        h("td", {}, entry.action), h("td", {}, entry.target), change(entry)))));
  }
  async function verify() {
    chain.replaceChildren(h("p", {}, t("admin.audit.chain_checking")));
    const { logs } = await get("/audit/verify");
    chain.replaceChildren(chainResult(logs));
  }
  container.append(h("h2", {}, t("admin.nav.audit")),
    h("section.chain-section", {}, h("button.btn", { type: "button", name: "verify", onclick: verify },
      t("admin.audit.verify")), chain),
    h("form.filters", { onsubmit: (event) => { event.preventDefault(); load(); } },
      action, h("button.btn", { type: "submit" }, t("admin.search"))), results);
  await load();
  await verify();
}
