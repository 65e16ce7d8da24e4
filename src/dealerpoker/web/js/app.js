// Boot and routing: "#/" is the lobby, "#/play/<game>" a game's table.

import { Api } from "./api.js";
import { gameTitle, h } from "./dom.js";
import { preferredLanguage, useLanguage } from "./i18n.js";
import "./live-lobby.js"; // adds the live tables' section to the lobby
import { renderLobby } from "./lobby.js";
import { Table } from "./table.js";

const api = new Api();
const root = document.getElementById("app");
let games = null;
let table = null;

async function loadGames() {
  games ??= (await api.games()).games;
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
          `There is no game "${decodeURIComponent(match[1])}". `, h("a", { href: "#/" }, "Back to the lobby")));
        return;
      }
      document.title = `${gameTitle(game)} — dealerpoker`;
      table = new Table(root, api, game);
      window.dealerpokerTable = table; // for the browser tests and the curious
      await table.start();
    } else {
      document.title = "dealerpoker casino";
      await renderLobby(root, api, { games: list });
    }
  } catch (error) {
    games = null;
    root.replaceChildren(h("div.message", { dataset: { kind: "error" }, role: "alert" },
      `Cannot reach the casino server: ${error.message} `,
      h("button.btn.btn--small", { type: "button", id: "retry", onclick: route }, "RETRY")));
  }
}

window.addEventListener("hashchange", route);
useLanguage(preferredLanguage("dealerpoker.language")).catch(() => {}).finally(route);
