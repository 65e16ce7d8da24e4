// The solo table's chips before the deal: placing and taking back chips on the fields, with the
// reasons a field refuses one, in the player's words. The server checks every bet again at the
// deal. Mixed into Table (table.js); `this` is the table.

import { closedByRequirement, dependants } from "./betting.js";
import { fieldTitle } from "./dom.js";
import { fly, play } from "./motion.js";
import { t } from "./i18n.js";
import { fewestChips, formatMoney, sum } from "./money.js";

export const tableBets = {
  /** The bets changed: a refusal of a chip too many (max, balance) is behind the player. */
  betsChanged() {
    for (const [name, kind] of this.refusals) if (kind === "change") this.refusals.delete(name);
  },


  // ---------------------------------------------------------------- chips on the felt

  selectChip(index) {
    if (index < 0 || index >= this.game.chips.length) return;
    this.selected = index;
    this.render();
  },

  /** Why `name` takes no chip now (null when it is open), in words for the player. */
  closedReason(name) {
    if (this.phase === "playing") return t("bet.closed_playing");
    if (this.phase === "settled") return t("bet.closed_settled");
    return closedByRequirement(this.field(name), this.pending);
  },

  placeChip(name) {
    if (this.busy) return;
    const reason = this.closedReason(name);
    if (reason) return this.refuse(name, reason, this.phase === "betting" ? "closed" : "change");
    const chip = this.game.chips[this.selected];
    const field = this.field(name);
    const amount = (this.pending[name] ?? 0) + chip;
    if (amount > field.max) {
      return this.refuse(name, t("bet.over_max_chip", { field: fieldTitle(name), max: formatMoney(field.max),
        chip: formatMoney(chip), amount: formatMoney(amount) }));
    }
    const total = sum(Object.values(this.pending)) + chip;
    if (this.balance !== null && total > this.balance) {
      return this.refuse(name, t("bet.over_balance", { total: formatMoney(total), balance: formatMoney(this.balance) }));
    }
    this.pending[name] = amount;
    (this.placed[name] ??= []).push(chip);
    this.betsChanged();
    this.message(t("bet.placed", { field: fieldTitle(name), amount: formatMoney(amount) }));
    this.render();
    const tray = this.el.tray.children[this.selected];
    const chips = this.el.spots.querySelectorAll(`[data-spot="${name}"] .stack .chip`);
    fly(tray, chips[chips.length - 1], [tray]);
    play("chip");
  },

  setAmount(name, amount, history) {
    if (amount > 0) {
      this.pending[name] = amount;
      this.placed[name] = history;
    } else {
      delete this.pending[name];
      delete this.placed[name];
    }
    this.betsChanged();
    // A field that needs this one (Bonus/AA needs the Ante) cannot stay without it.
    const orphans = dependants(this.game.fields, name).filter((f) => this.pending[f.name] && !amount);
    for (const orphan of orphans) this.setAmount(orphan.name, 0, []);
    const note = orphans.length
      ? ` ${t("bet.orphans_returned", { fields: orphans.map((f) => fieldTitle(f.name)).join(", "), field: fieldTitle(name) })}` : "";
    this.message(`${t("bet.placed", { field: fieldTitle(name), amount: formatMoney(amount) })}${note}`);
    this.render();
  },

  /** Right-click: take the lowest chip off the stack. */
  removeLowestChip(name) {
    if (this.busy || this.phase !== "betting") return;
    const amount = this.pending[name] ?? 0;
    if (!amount) return this.refuse(name, t("bet.nothing_to_remove", { field: fieldTitle(name) }));
    const stack = fewestChips(amount, this.game.chips) ?? [amount];
    const lowest = stack[stack.length - 1];
    const history = [...(this.placed[name] ?? [])];
    const at = history.lastIndexOf(lowest);
    if (at >= 0) history.splice(at, 1);
    const rest = amount - lowest;
    this.setAmount(name, rest, at >= 0 ? history : [...(fewestChips(rest, this.game.chips) ?? [])]);
  },

  /** Ctrl+click: take back the chips chip by chip, the last one placed first. */
  removeLastChip(name) {
    if (this.busy || this.phase !== "betting") return;
    const amount = this.pending[name] ?? 0;
    if (!amount) return this.refuse(name, t("bet.nothing_to_remove", { field: fieldTitle(name) }));
    const history = [...(this.placed[name] ?? [])];
    const chip = history.length ? history.pop() : (fewestChips(amount, this.game.chips) ?? [amount]).at(-1);
    this.setAmount(name, amount - chip, history);
  },

  /** Right-click on a lifted stack: every chip of the field goes. */
  removeStack(name) {
    if (this.busy || this.phase !== "betting") return;
    if (!this.pending[name]) return this.refuse(name, t("bet.nothing_to_remove", { field: fieldTitle(name) }));
    this.setAmount(name, 0, []);
    this.message(t("bet.stack_removed", { field: fieldTitle(name) }));
  },

  clear() {
    if (this.busy || this.phase !== "betting") return;
    this.pending = {};
    this.placed = {};
    this.betsChanged();
    this.message(t("bet.cleared"));
    this.render();
  },

  checkBets(bets) {
    const total = sum(Object.values(bets));
    for (const field of this.game.fields) {
      const amount = bets[field.name] ?? 0;
      const named = { field: fieldTitle(field.name), min: formatMoney(field.min), max: formatMoney(field.max) };
      if (!field.optional && !amount) return [field.name, t("bet.place_required", named)];
      if (amount && amount < field.min) return [field.name, t("bet.below_min", named)];
      if (amount > field.max) return [field.name, t("bet.above_max", named)];
    }
    if (this.balance !== null && total > this.balance) {
      return [null, t("bet.need_balance", { total: formatMoney(total), balance: formatMoney(this.balance) })];
    }
    return null;
  },
};
