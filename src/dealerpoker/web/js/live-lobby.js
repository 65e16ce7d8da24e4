// The lobby's "Live tables" section: GET /api/tables, with each table's player count.

import { t } from "./i18n.js";
import { addLobbySection } from "./lobby.js";
import { formatMoney } from "./money.js";

// A table's stakes in its currency as the server formats it (a configured mBTC has 5 decimals,
// which the browser does not know), whatever the player's currency.
function money(amount, table) {
  return formatMoney(amount, { currency: table.currency_format ?? table.currency });
}

addLobbySection(async (api) => {
  let tables;
  try {
    ({ tables } = await api.call("GET", "/api/tables"));
  } catch (error) {
    if (error.status === 404) return null; // a server without live tables
    throw error;
  }
  // A player plays in their account's currency: only the tables in it are offered.
  const currency = await api.balance().then((answer) => answer.currency ?? null).catch(() => null);
  const theirs = currency ? tables.filter((table) => (table.currency_format?.code ?? table.currency) === currency) : tables;
  return {
    id: "live",
    title: t("lobby.live_tables"),
    note: tables.length && !theirs.length ? t("lobby.no_live_tables_currency", { currency }) : null,
    entries: theirs.map((table) => ({
      id: `live-${table.id}`,
      kind: "live",
      title: table.dealing === "studio" ? t("lobby.studio_table", { title: table.title }) : table.title,
      subtitle: [t("lobby.players", { count: table.players }),
        t("lobby.ante_range", { min: money(table.limits.ante.min, table), max: money(table.limits.ante.max, table) }),
        t("lobby.timers", { betting: table.betting_seconds, decision: table.decision_seconds })].join(" · "),
      href: `live.html#/${encodeURIComponent(table.id)}`,
    })),
  };
});
