// What follows the mouse over the felt, as on VueTec's table (solo and live pages alike):
//  - the selected chip, drawn under the pointer while bets are open ("there will also still be that
//    chip following the mouse so you can continue to place more chips");
//  - a lifted stack: "press and release the mouse over the stack of chips you wish to remove. This
//    stack of chips will now follow the mouse. Press and release the right mouse button and all the
//    chips will disappear", also off the table. A left click on its own field, or Esc, puts it back.
// Clicking the chips of a stack lifts it; clicking the field's empty area adds a chip (the on-page
// help says so). Only games whose rule page describes the pick-up have it (Casino Hold'em's page
// says every click on a field adds a chip).

import { fieldTitle, h } from "./dom.js";
import { t } from "./i18n.js";

export const PICKUP_GAMES = new Set(["texas-bonus"]);

export class FeltPointer {
  /**
   * @param {object} o
   * @param {Element} o.table   the page's `.table` section
   * @param {string} o.game     the game id (pick-up only where its rules describe it)
   * @param {() => boolean} o.open        bets may change now
   * @param {() => Element|null} o.chip   the selected chip in the tray (its look is copied)
   * @param {(name: string, container: Element) => void} o.drawStack  draws a field's stack
   * @param {(name: string) => void} o.remove  takes every chip off a field (the right click)
   * @param {(text: string) => void} o.say     tells the player what happened
   */
  constructor(o) {
    Object.assign(this, o);
    this.pickup = PICKUP_GAMES.has(o.game);
    this.lifted = null; // the field whose stack follows the pointer
    this.follower = h("div.pointer-chip", { "aria-hidden": "true", hidden: true });
    this.liftedStack = h("div.lifted-stack", { "aria-hidden": "true", hidden: true }, h("span.stack", {}));
    this.table.append(this.follower, this.liftedStack);
    this.table.classList.toggle("table--pickup", this.pickup);
    this.onMove = (event) => this.move(event);
    this.onClick = (event) => this.click(event);
    this.onMenu = (event) => this.menu(event);
    this.onKey = (event) => this.key(event);
    document.addEventListener("pointermove", this.onMove, { passive: true });
    document.addEventListener("click", this.onClick, true);
    document.addEventListener("contextmenu", this.onMenu, true);
    document.addEventListener("keydown", this.onKey, true);
  }

  /** The on-page help of a game's betting fields (how a click adds, lifts or removes chips). */
  static helpKey(game) {
    return PICKUP_GAMES.has(game) ? "help.bets_pickup" : "help.bets";
  }

  destroy() {
    document.removeEventListener("pointermove", this.onMove);
    document.removeEventListener("click", this.onClick, true);
    document.removeEventListener("contextmenu", this.onMenu, true);
    document.removeEventListener("keydown", this.onKey, true);
    this.follower.remove();
    this.liftedStack.remove();
  }

  /** A click on a field: true when it lifted the field's stack (the click must add no chip). */
  lift(name, event) {
    if (!this.pickup || this.lifted || !this.open()) return false;
    if (event.ctrlKey || event.metaKey || !(event.target instanceof Element)) return false;
    if (!event.target.closest(".stack .chip")) return false; // the field's empty area: add a chip
    this.lifted = name;
    this.drawStack(name, this.liftedStack.firstElementChild);
    this.liftedStack.dataset.field = name;
    this.table.querySelector(`.spot[data-field="${name}"]`)?.classList.add("is-lifted");
    this.place(this.liftedStack, event.clientX, event.clientY);
    this.liftedStack.hidden = false;
    this.follower.hidden = true;
    this.say(t("pickup.lifted", { field: fieldTitle(name) }));
    return true;
  }

  /** Puts a lifted stack back on its field (nothing changes: its chips never left the bets). */
  putBack({ quiet = false } = {}) {
    if (!this.lifted) return;
    const name = this.lifted;
    this.drop();
    if (!quiet) this.say(t("pickup.put_back", { field: fieldTitle(name) }));
  }

  drop() {
    if (this.lifted) this.table.querySelector(`.spot[data-field="${this.lifted}"]`)?.classList.remove("is-lifted");
    this.lifted = null;
    this.liftedStack.hidden = true;
    delete this.liftedStack.dataset.field;
  }

  /** Called after every render: bets closed (a deal, the timer) put a lifted stack back. */
  refresh() {
    if (this.lifted && !this.open()) this.putBack({ quiet: true });
    if (this.lifted) this.drawStack(this.lifted, this.liftedStack.firstElementChild);
    if (!this.open()) this.follower.hidden = true;
    else this.drawFollower();
  }

  drawFollower() {
    const chip = this.chip();
    if (!chip) return;
    if (this.follower.dataset.chip === chip.dataset.chip) return;
    const copy = chip.cloneNode(true);
    copy.classList.remove("is-selected");
    copy.removeAttribute("id");
    copy.tabIndex = -1;
    this.follower.replaceChildren(copy);
    this.follower.dataset.chip = chip.dataset.chip;
  }

  place(element, x, y) {
    element.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
    element.dataset.x = String(Math.round(x));
    element.dataset.y = String(Math.round(y));
  }

  move(event) {
    if (this.lifted) {
      this.place(this.liftedStack, event.clientX, event.clientY);
      return;
    }
    // A finger has no pointer to follow; a mouse or pen does, while the bets are open.
    const overFelt = event.target instanceof Element && event.target.closest(".felt") !== null;
    const show = event.pointerType !== "touch" && overFelt && this.open();
    if (show) {
      this.drawFollower();
      this.place(this.follower, event.clientX, event.clientY);
    }
    this.follower.hidden = !show;
  }

  click(event) {
    if (!this.lifted || event.button !== 0) return;
    // Whatever was clicked, the stack goes back first and the click does nothing else, so a
    // lifted stack never turns into an extra chip or a deal by surprise.
    event.preventDefault();
    event.stopPropagation();
    this.putBack();
  }

  menu(event) {
    if (!this.lifted) return;
    event.preventDefault();
    event.stopPropagation();
    const name = this.lifted;
    this.drop();
    this.remove(name);
  }

  key(event) {
    if (this.lifted && event.key === "Escape") {
      event.stopPropagation();
      this.putBack();
    }
  }
}
