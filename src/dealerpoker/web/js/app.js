// Boot and routing: "#/" is the lobby, "#/play/<game>" a game's table.

import { Api } from "./api.js";
import { gameTitle, h } from "./dom.js";
import { t } from "./i18n.js";
import "./live-lobby.js"; // adds the live tables' section to the lobby
import { startLocale } from "./locale.js";
import { renderLobby } from "./lobby.js";
import { Table } from "./table.js";

const api = new Api();
const root = document.getElementById("app");
let games = null;
let hint = false; // the server offers the strategy hint (GET /api/games)
let table = null;

async function loadGames() {
  if (!games) {
    const offer = await startLocale(api);
    games = offer.games;
    hint = offer.strategy_hint === true;
  }
  return games;
}

async function route() {
  table?.destroy();
  table = null;
  const match = /^#\/play\/([^/]+)$/.exec(location.hash);
  try {
    const list = await loadGames();
    if (match) {
      const game = list.find((g) => g.id === decodeURIComponent(match[1]));
      if (!game) {
        root.replaceChildren(h("p.message", { dataset: { kind: "error" }, role: "alert" },
          t("page.no_game", { game: decodeURIComponent(match[1]) }), " ", h("a", { href: "#/" }, t("page.back_to_lobby"))));
        return;
      }
      document.title = `${gameTitle(game)} — dealerpoker`;
      table = new Table(root, api, game, { hint });
      window.dealerpokerTable = table; // for the browser tests and the curious
      await table.start();
    } else {
      document.title = t("lobby.title");
      await renderLobby(root, api, { games: list });
    }
  } catch (error) {
    games = null;
    root.replaceChildren(h("div.message", { dataset: { kind: "error" }, role: "alert" },
      t("page.unreachable", { error: error.message }), " ",
      h("button.btn.btn--small", { type: "button", id: "retry", onclick: route }, t("page.retry"))));
  }
}

window.addEventListener("hashchange", route);
route();
