// The admin audit log: every change made in the back office, newest first (admins, auditors).

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { table } from "./format.js";
import { get, query } from "./http.js";

function json(value) {
  return value === null || value === undefined ? "" : JSON.stringify(value);
}

export async function auditPage(container) {
  const action = h("input", { name: "action", placeholder: t("admin.audit.action") });
  const results = h("div.results");
  async function load() {
    const { entries } = await get(`/audit${query({ action: action.value, limit: 200 })}`);
    results.replaceChildren(entries.length === 0 ? h("p", {}, t("admin.audit.empty")) : table(
      [t("admin.audit.at"), t("admin.audit.actor"), t("admin.audit.action"), t("admin.audit.target"),
        t("admin.audit.before"), t("admin.audit.after")],
      entries.map((entry) => h("tr", {}, h("td", {}, entry.at), h("td", {}, entry.actor),
        h("td", {}, entry.action), h("td", {}, entry.target), h("td.code", {}, json(entry.before)),
        h("td.code", {}, json(entry.after))))));
  }
  container.append(h("h2", {}, t("admin.nav.audit")),
    h("form.filters", { onsubmit: (event) => { event.preventDefault(); load(); } },
      action, h("button.btn", { type: "submit" }, t("admin.search"))), results);
  await load();
}
