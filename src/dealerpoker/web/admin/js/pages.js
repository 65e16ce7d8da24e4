// The back office's pages: each a title (a catalogue key), the permission it needs and
// render(container, argument); "hidden" pages open from links (a round, a player), not the menu.

import { auditPage } from "./audit.js";
import { campaignsPage } from "./campaigns.js";
import { gamesPage } from "./games.js";
import { jackpotPage } from "./jackpot.js";
import { monitorPage } from "./monitor.js";
import { operatorsPage } from "./operators.js";
import { playerPage, playersPage } from "./players.js";
import { reportsPage } from "./reports.js";
import { roundPage, roundsPage } from "./rounds.js";

export const PAGES = {
  monitor: { title: "admin.nav.monitor", permission: "monitor.view", render: monitorPage },
  rounds: { title: "admin.nav.rounds", permission: "rounds.view", render: roundsPage },
  round: { title: "admin.nav.rounds", permission: "rounds.view", render: roundPage, hidden: true },
  players: { title: "admin.nav.players", permission: "players.view", render: playersPage },
  player: { title: "admin.nav.players", permission: "players.view", render: playerPage, hidden: true },
  operators: { title: "admin.nav.operators", permission: "operators.view", render: operatorsPage },
  reports: { title: "admin.nav.reports", permission: "reports.view", render: reportsPage },
  games: { title: "admin.nav.games", permission: "games.view", render: gamesPage },
  jackpot: { title: "admin.nav.jackpot", permission: "reports.view", render: jackpotPage },
  campaigns: { title: "admin.nav.campaigns", permission: "reports.view", render: campaignsPage },
  audit: { title: "admin.nav.audit", permission: "audit.view", render: auditPage },
};
