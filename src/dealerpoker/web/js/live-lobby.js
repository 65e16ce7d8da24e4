// The lobby's "Live tables" section: GET /api/tables, with each table's player count.

import { t } from "./i18n.js";
import { addLobbySection } from "./lobby.js";
import { formatMoney } from "./money.js";

addLobbySection(async (api) => {
  let tables;
  try {
    ({ tables } = await api.call("GET", "/api/tables"));
  } catch (error) {
    if (error.status === 404) return null; // a server without live tables
    throw error;
  }
  return {
    id: "live",
    title: t("lobby.live_tables"),
    entries: tables.map((table) => ({
      id: `live-${table.id}`,
      kind: "live",
      title: table.dealing === "studio" ? `${table.title} — cards dealt by the studio` : table.title,
      subtitle: `${table.players} player${table.players === 1 ? "" : "s"} · ante ${formatMoney(table.limits.ante.min)}–`
        + `${formatMoney(table.limits.ante.max)} · ${table.betting_seconds} s to bet, ${table.decision_seconds} s per decision`,
      href: `live.html#/${encodeURIComponent(table.id)}`,
    })),
  };
});
