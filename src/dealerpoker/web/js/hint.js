// The strategy hint, where the server offers it (GET /api/games says strategy_hint; off by default):
// at each open decision of a solo round or a live table's seat, the best decision and its exact EV
// from the server's analysis (GET /api/rounds/{id}/advice, GET /api/tables/{id}/advice: worked out
// from the cards this player sees), with a "why" tooltip giving the EV of each choice. The page
// only shows what the server answers.

import { actionTitle, h } from "./dom.js";
import { t } from "./i18n.js";

/** "+0.973": an EV per unit ante, signed, in the page's language. */
function evText(ev) {
  return new Intl.NumberFormat(document.documentElement.lang || "en",
    { signDisplay: "exceptZero", minimumFractionDigits: 3, maximumFractionDigits: 3 }).format(ev);
}

export class StrategyHint {
  /** `address(round)`: where the advice for `round`'s decision is asked (a solo round's by default). */
  constructor(api, address = (round) => `/api/rounds/${encodeURIComponent(round.id)}/advice`) {
    this.api = api;
    this.address = address;
    this.shown = null; // the decision (round id and step) whose advice is asked for or shown
    this.el = h("p.hint", { id: "strategy-hint", hidden: true, "aria-live": "polite" });
  }

  /** Shows the advice for `round`'s open decision (asked once per decision); hidden otherwise.
   * `round`: {id, status, legal_actions, steps}, a solo round's view or a live seat's. */
  show(round) {
    const open = round?.status === "open" && (round.legal_actions ?? []).length > 0;
    const decision = open ? `${round.id}|${round.steps?.length ?? 0}` : null;
    if (decision === this.shown) return;
    this.shown = decision;
    this.el.hidden = true;
    this.el.replaceChildren();
    if (!decision) return;
    this.api.call("GET", this.address(round)).then((advice) => {
      if (this.shown === decision) this.render(advice);
    }).catch(() => {
      // No hint this time (the connection, a round settled meanwhile): the table plays on.
    });
  }

  render(advice) {
    const choices = Object.entries(advice.actions).sort(([, a], [, b]) => b.ev - a.ev);
    const tip = h("span.hint__tip", { role: "tooltip", id: "strategy-hint-why" },
      h("span.hint__tip-title", {}, t("hint.why_title")),
      ...choices.map(([action, { ev }]) => h("span.hint__row", { dataset: { action, ev: String(ev) } },
        t("hint.choice", { action: actionTitle(action), ev: evText(ev) }))));
    this.el.replaceChildren(
      h("span.hint__best", { dataset: { best: advice.best } },
        t("hint.best", { action: actionTitle(advice.best), ev: evText(advice.actions[advice.best].ev) })),
      " ",
      h("span.hint__why", { tabindex: "0", "aria-describedby": "strategy-hint-why" }, t("hint.why"), tip));
    this.el.hidden = false;
  }
}
