// Games and paytables: each game's rules in force with each bet's exact RTP and its versions;
// an admin drafts changes, sees their exact figures, and asks for a version to go live; a second
// admin approves it (four eyes), at once or at a scheduled time; an earlier version can be made
// live again as itself, under approval too. Each version carries the jurisdictions it is approved
// for: a player of another is refused its rounds (none set: not restricted).

import { h } from "/js/dom.js";
import { t } from "/js/i18n.js";
import { cell, field, percent, table } from "./format.js";
import { get, post } from "./http.js";
import { can, errorText, session } from "./state.js";

/** Every RTP per unit staked, the basis of the reports too: the main game in total first, then
 *  each side bet; the ante alone (per unit of ante) last, named as such. */
function figuresTable(figures) {
  const row = (className, label, value, name) => h(`tr${className}`, { dataset: { bet: name } }, cell(label),
    cell(percent(value.float, 4), "num"), cell(value.exact, "code"));
  const rows = [];
  if (figures.total_rtp) rows.push(row(".main", t("admin.games.rtp_main"), figures.total_rtp, "main"));
  for (const [name, value] of Object.entries(figures.rtps)) {
    if (value && name !== "ante") rows.push(row("", t("admin.games.rtp_of", { bet: name }), value, name));
  }
  if (figures.rtps.ante) rows.push(row(".per-ante", t("admin.games.rtp_of_ante"), figures.rtps.ante, "ante"));
  return table([t("admin.games.bet"), t("admin.games.rtp"), t("admin.games.exact")], rows);
}

/** A datetime-local input's value read as UTC ("" -> null: at approval). */
function liveFrom(input) {
  return input.value ? `${input.value}:00Z` : null;
}

function draftForm(game, bounds) {
  const editable = Object.fromEntries(Object.entries(game.rules).filter(([key]) =>
    !["game", "limits", "chips", "rules_version", "title"].includes(key)));
  const text = h("textarea.code", { name: "changes", rows: 12, cols: 80 }, JSON.stringify(editable, null, 1));
  const when = h("input", { name: "live_from", type: "datetime-local" });
  const result = h("div.draft-result", { "aria-live": "polite" });
  const parse = () => JSON.parse(text.value);
  const run = (path, body, done) => async () => {
    result.replaceChildren(h("p", {}, t("admin.games.computing")));
    try {
      done(await post(`/games/${encodeURIComponent(game.game)}/${path}`, body()));
    } catch (error) {
      result.replaceChildren(h("p.message", { role: "alert" }, error instanceof SyntaxError ? t("admin.games.not_json") : errorText(error)));
    }
  };
  const show = (answer) => result.replaceChildren(
    h("p.house-edge", {}, t("admin.games.draft_edge", { edge: percent(answer.house_edge_float, 4),
      exact: answer.house_edge, seconds: answer.seconds })), figuresTable(answer),
    ...(answer.out_of_bounds?.length ? [h("p.message.out-of-bounds", { role: "alert" },
      t("admin.games.out_of_bounds", { bounds: boundsText(bounds), which: answer.out_of_bounds.join("; ") }))] : []));
  return h("div.draft", {}, h("h4", {}, t("admin.games.draft")), h("p", {}, t("admin.games.draft_explain")), text,
    field(t("admin.games.live_from"), when),
    h("div.actions", {},
      h("button.btn.compute", { type: "button", onclick: run("draft", () => ({ changes: parse() }), show) },
        t("admin.games.compute")),
      h("button.btn.secondary.save", { type: "button",
        onclick: run("versions", () => ({ changes: parse(), live_from: liveFrom(when) }), () => { location.reload(); }) },
      t("admin.games.save"))), result);
}

function boundsText(bounds) {
  return t("admin.games.bounds", { low: percent(bounds.low_float, 2), high: percent(bounds.high_float, 2) });
}

function act(path, message) {
  return async () => {
    try {
      await post(path, {});
      location.reload();
    } catch (error) {
      message.textContent = errorText(error);
    }
  };
}

function pendingList(game, versions) {
  if (!game.pending.length) return null;
  const me = session.me?.name;
  const message = h("p.message", { role: "alert" });
  const base = `/games/${encodeURIComponent(game.game)}/requests`;
  const byNumber = new Map(versions.map((v) => [v.version, v]));
  return h("div.pending", {}, h("h4", {}, t("admin.games.pending")),
    table([t("admin.games.version"), t("admin.games.asked_by"), t("admin.games.live_from"), t("admin.games.rtp_total"),
      t("admin.games.fingerprint_short"), ""],
    game.pending.map((request) => {
      const version = byNumber.get(request.version);
      const mine = request.requested_by === me;
      return h("tr.request", { dataset: { request: request.id, version: request.version } },
        cell(version?.rules_version ?? request.version), cell(`${request.requested_by}, ${request.requested_at}`),
        cell(request.live_from ?? t("admin.games.at_approval")),
        cell(version?.figures ? percent(Number(fraction(version.figures.total_rtp)), 4) : ""),
        cell(version?.fingerprint, "code"),
        decision(`${base}/${request.id}`, mine, message));
    })), message);
}

/** A waiting request's cell of buttons: another admin approves or rejects it; the one who asked
 *  is told another admin must approve, and may withdraw it (`path`: the request's API path). */
function decision(path, mine, message) {
  if (!can("games.edit")) return h("td", {});
  return h("td", {}, h("div.actions", {},
    mine ? h("span.note", {}, t("admin.games.needs_other")) :
      h("button.btn.approve", { type: "button", onclick: act(`${path}/approve`, message) }, t("admin.games.approve")),
    h("button.btn.secondary.reject", { type: "button", onclick: act(`${path}/reject`, message) },
      mine ? t("admin.games.withdraw") : t("admin.games.reject"))));
}

/** Changes of a version's jurisdictions waiting for a second admin: the one who asked sees
 *  "another admin must approve" and may withdraw; another admin approves or rejects. */
function pendingApprovalsList(game, versions) {
  const waiting = game.pending_jurisdictions ?? [];
  if (!waiting.length) return null;
  const me = session.me?.name;
  const message = h("p.message", { role: "alert" });
  const base = `/games/${encodeURIComponent(game.game)}/jurisdiction-requests`;
  const byNumber = new Map(versions.map((v) => [v.version, v]));
  return h("div.pending-jurisdictions", {}, h("h4", {}, t("admin.games.pending_jurisdictions")),
    table([t("admin.games.version"), t("admin.games.asked_by"), t("admin.games.jurisdictions_now"),
      t("admin.games.jurisdictions_asked"), t("admin.games.fingerprint_short"), ""],
    waiting.map((request) => {
      const version = byNumber.get(request.version);
      const mine = request.requested_by === me;
      return h("tr.jurisdiction-request", { dataset: { request: request.id, version: request.version } },
        cell(version?.rules_version ?? request.version), cell(`${request.requested_by}, ${request.requested_at}`),
        cell(approvalsText(version?.jurisdictions)), h("td.asked", {}, approvalsText(request.jurisdictions)),
        cell(version?.fingerprint, "code"),
        decision(`${base}/${request.id}`, mine, message));
    })), message);
}

/** "p/q" -> its value (display only). */
function fraction(text) {
  const [p, q] = String(text).split("/");
  return Number(p) / Number(q ?? 1);
}

function versionStatus(version, live) {
  if (version.fingerprint === live) return t("admin.games.status_live");
  const approved = version.requests.filter((r) => r.status === "approved");
  if (approved.some((r) => r.effective_at > new Date().toISOString())) return t("admin.games.status_scheduled");
  if (version.requests.some((r) => r.status === "pending")) return t("admin.games.status_pending");
  return approved.length ? t("admin.games.status_earlier") : t("admin.games.status_never");
}

/** The jurisdictions a version is approved for: null, not restricted; [], none. */
function approvalsText(codes) {
  if (codes === null || codes === undefined) return t("admin.games.unrestricted");
  return codes.length ? codes.join(", ") : t("admin.games.approved_nowhere");
}

/** An editor's way to set them: a box per jurisdiction this deployment has a profile for, or
 *  "not restricted". `version`: null for the rules in force when no version was saved yet. */
function approvalsForm(game, version, codes, known) {
  const message = h("p.message", { role: "alert" });
  const open = h("input", { type: "checkbox", name: "unrestricted", checked: codes === null || codes === undefined });
  const boxes = known.map((code) => h("input", { type: "checkbox", name: "jurisdiction", value: code,
    checked: Array.isArray(codes) && codes.includes(code) }));
  const save = async () => {
    const chosen = open.checked ? null : boxes.filter((box) => box.checked).map((box) => box.value);
    try {
      await post(`/games/${encodeURIComponent(game.game)}/jurisdictions`, { version, jurisdictions: chosen });
      location.reload();
    } catch (error) {
      message.textContent = errorText(error);
    }
  };
  return h("details.approvals", { dataset: { approvals: version ?? "in-force" } },
    h("summary", {}, t("admin.games.set_jurisdictions")),
    h("label.check", {}, open, ` ${t("admin.games.unrestricted")}`),
    h("div.jurisdiction-boxes", {}, boxes.map((box) => h("label.check", {}, box, ` ${box.value}`))),
    h("p.note", {}, t("admin.games.approvals_four_eyes")),
    h("button.btn.secondary.save-approvals", { type: "button", onclick: save }, t("admin.games.save_jurisdictions")),
    message);
}

function versionsTable(game, known) {
  if (!game.versions.length) {
    return h("div.versions", {}, h("p", {}, t("admin.games.no_versions")),
      can("games.edit") && known.length ? approvalsForm(game, null, null, known) : null);
  }
  const message = h("p.message", { role: "alert" });
  return h("div.versions", {}, table([t("admin.games.version"), t("admin.audit.at"), t("admin.audit.actor"),
    t("admin.games.rtp_total"), t("admin.games.approved_by"), t("admin.games.jurisdictions"), t("admin.games.status"),
    t("admin.games.fingerprint_short"), ""],
  game.versions.map((v) => {
    const approvals = v.requests.filter((r) => r.status === "approved").map((r) => r.decided_by);
    const live = v.fingerprint === game.fingerprint;
    return h("tr.version", { dataset: { version: v.version, fingerprint: v.fingerprint } },
      cell(v.rules_version ?? game.rules_version), cell(v.created_at), cell(v.created_by),
      cell(v.figures ? percent(fraction(v.figures.total_rtp), 4) : ""), cell(approvals.join(", ")),
      h("td.jurisdictions", {}, approvalsText(v.jurisdictions),
        can("games.edit") && known.length ? approvalsForm(game, v.version, v.jurisdictions, known) : null),
      cell(versionStatus(v, game.fingerprint)), cell(v.fingerprint, "code"),
      h("td", {}, can("games.edit") && !live && !v.requests.some((r) => r.status === "pending")
        ? h("button.btn.secondary.restore", { type: "button",
          onclick: act(`/games/${encodeURIComponent(game.game)}/versions/${v.version}/restore`, message) },
        t("admin.games.restore")) : null));
  })), message);
}

export async function gamesPage(container) {
  const { games, tables, rtp_bounds: bounds, jurisdictions: known = [] } = await get("/games");
  container.append(h("h2", {}, t("admin.nav.games")), h("p.bounds", {}, boundsText(bounds)));
  for (const game of games) {
    container.append(h("section.card.game", { dataset: { game: game.game, fingerprint: game.fingerprint } },
      h("h3", {}, `${t(`game.${game.game}`)} — ${game.rules_version}`),
      h("p.fingerprint", {}, t("admin.games.fingerprint", { fingerprint: game.fingerprint })),
      h("p", {}, t("admin.games.house_edge", { edge: percent(game.figures.house_edge_float, 4), exact: game.figures.house_edge })),
      figuresTable(game.figures),
      h("details", {}, h("summary", {}, t("admin.games.rules")), h("pre.code", {}, JSON.stringify(game.rules, null, 1))),
      pendingList(game, game.versions),
      pendingApprovalsList(game, game.versions),
      versionsTable(game, known),
      can("games.edit") ? draftForm(game, bounds) : null));
  }
  if (tables.length) {
    container.append(h("h3", {}, t("admin.games.tables")),
      table([t("admin.rounds.table"), t("admin.rounds.game"), t("admin.reports.currency"), t("admin.games.timers"), t("admin.games.fingerprint_short")],
        tables.map((tb) => h("tr", {}, cell(tb.id), cell(tb.game), cell(tb.currency),
          cell(t("admin.monitor.timers", tb)), cell(tb.fingerprint, "code")))));
  }
}
