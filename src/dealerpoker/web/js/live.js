// The live table's page: joins the table the address names (live.html#/<table id>).

import { Api } from "./api.js";
import { h } from "./dom.js";
import { preferredLanguage, t, useLanguage } from "./i18n.js";
import { LiveTable } from "./live-table.js";
import { LANGUAGE_KEY, launch } from "./locale.js";


const root = document.getElementById("app");
const tableId = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
launch();
useLanguage(preferredLanguage(LANGUAGE_KEY)).catch(() => {}).finally(() => {
  if (!tableId) {
    root.replaceChildren(h("p.message", { dataset: { kind: "error" } }, `${t("live.no_table")} `,
      h("a", { href: "./#/" }, t("page.back_to_lobby"))));
    return;
  }
  const live = new LiveTable(root, new Api(), tableId);
  window.dealerpokerLive = live; // for the browser tests and the curious
  live.start().catch((error) => {
    root.replaceChildren(h("p.message", { dataset: { kind: "error" }, role: "alert" },
      t("live.cannot_join", { error: error.message })));
  });
});
