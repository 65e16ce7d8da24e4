// What the player's jurisdiction requires the page to show (the server enforces its rules; this
// shows them; docs/jurisdictions.md): a strip at the top of the table with the session clock,
// the net position since the session began and the time of day where the profile asks for
// them, the links its regulator requires (Sweden: Spelpaus, Spelgränser, Självtest, at the
// operator's addresses), and the recall of the player's last rounds step by step; the complaint
// procedure (the operator's contact, then the regulator's) at the end of the rules panel.
// Fed by GET /api/responsible-gaming (responsible.js hands each answer to `showJurisdiction`).

import { h, setText } from "./dom.js";
import { t } from "./i18n.js";
import { allowJackpots } from "./jackpot.js";
import { formatMoney } from "./money.js";

const LINK_KEYS = {
  spelpaus: "juris.link.spelpaus", spelgranser: "juris.link.spelgranser", sjalvtest: "juris.link.sjalvtest",
  rofus: "juris.link.rofus", stopspillet: "juris.link.stopspillet", selvtest: "juris.link.selvtest",
};
let current = null; // { profile, session, offset, api, kind }
let ticker = null;

/** The jurisdiction profile in force (null before the first answer). */
export function jurisdictionProfile() {
  return current?.profile ?? null;
}

function pad(number) {
  return String(number).padStart(2, "0");
}

/** "1:02:03" / "2:03": elapsed time from milliseconds. */
export function elapsedText(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const rest = `${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`;
  return hours ? `${hours}:${rest}` : rest.replace(/^0/, "");
}

function tick() {
  const strip = document.getElementById("juris-strip");
  if (!strip || !current) return;
  const now = Date.now() + current.offset;
  const started = current.session?.active ? Date.parse(current.session.started_at) : null;
  const clock = strip.querySelector("#juris-session-time");
  if (clock) setText(clock, elapsedText(started ? now - started : 0));
  const wall = strip.querySelector("#juris-clock");
  if (wall) setText(wall, new Date(now).toLocaleTimeString(document.documentElement.lang || "en", { hour: "2-digit", minute: "2-digit" }));
}

/** Take a GET /api/responsible-gaming answer: draw (or redraw) the strip it requires. `kind`:
 * the table's, "solo" or "live": its recall shows the player's rounds of that kind. */
export function showJurisdiction(status, api, kind = "solo") {
  const profile = status?.jurisdiction_profile;
  allowJackpots(profile); // the profile may forbid the jackpot: its tickers and switches go
  if (!profile) return;
  const offset = Date.parse(status.server_time) - Date.now();
  current = { profile, session: status.session ?? {}, offset: Number.isFinite(offset) ? offset : 0, api, kind };
  const display = profile.settings?.display?.value ?? {};
  const links = (profile.links ?? []).filter((link) => link.url);
  const recall = profile.settings?.recall_rounds?.value ?? 0;
  const items = [
    display.session_time ? h("span.juris__item", {}, h("span.juris__label", {}, t("juris.session_time")),
      h("output.juris__value", { id: "juris-session-time" }, "0:00")) : null,
    display.net_position ? h("span.juris__item", {}, h("span.juris__label", {}, t("juris.net_position")),
      h("output.juris__value", { id: "juris-net" }, formatMoney(current.session.net ?? 0, { signed: true }))) : null,
    display.clock ? h("span.juris__item", {}, h("span.juris__label", {}, t("juris.clock")),
      h("output.juris__value", { id: "juris-clock" })) : null,
    ...links.map((link) => h("a.juris__link", {
      href: link.url, target: "_blank", rel: "noopener", dataset: { link: link.id },
    }, LINK_KEYS[link.id] ? t(LINK_KEYS[link.id]) : link.id)),
    recall ? h("button.juris__recall.btn.btn--small", { type: "button", id: "juris-recall-button",
      // Loaded when asked for: the recall draws with the history panels, which show this strip's complaints.
      onclick: () => import("./recall.js").then(({ openRecall }) => openRecall(current.api, current.kind, recall)),
    }, t("juris.recall", { count: recall })) : null,
  ].filter(Boolean);
  document.getElementById("juris-strip")?.remove();
  if (!items.length) {
    document.body.classList.remove("has-juris-strip");
    return;
  }
  const strip = h("aside.juris", { id: "juris-strip", "aria-label": t("juris.strip"), dataset: { jurisdiction: profile.id } }, items);
  // On a table the strip is the stage's first row: the felt's fit (fit.js) leaves it its room, so
  // it covers nothing; elsewhere it is fixed at the top of the page.
  const stage = document.querySelector(".stage");
  if (stage) stage.prepend(strip);
  else document.body.prepend(strip);
  document.body.classList.toggle("has-juris-strip", !stage);
  tick();
  clearInterval(ticker);
  ticker = setInterval(tick, 1000);
}

/** Where the page draws no strip (the lobby): read the profile for what it allows the page to
 *  show (the jackpot). */
export async function readJurisdiction(api) {
  try {
    const status = await api.call("GET", "/api/responsible-gaming");
    allowJackpots(status?.jurisdiction_profile);
  } catch {
    // unknown: the jackpot stays hidden (the server refuses a bet its profile forbids anyway)
  }
}

/** The complaint procedure for the rules panel (null where the profile has none). */
export function complaintSection() {
  const profile = current?.profile;
  const complaints = profile?.settings?.complaints?.value;
  if (!complaints?.text) return null;
  return h("section.juris-complaints", { id: "juris-complaints" },
    h("h3", {}, t("juris.complaints")),
    profile.complaint_contact ? h("p", { id: "juris-contact" }, t("juris.contact", { contact: profile.complaint_contact })) : null,
    h("p", { id: "juris-regulator-text" }, complaints.text),
    complaints.url ? h("p", {}, h("a", { href: complaints.url, target: "_blank", rel: "noopener" },
      t("juris.regulator", { name: profile.regulator }))) : null);
}
