// Money and chip arithmetic for display. Amounts are integer minor units (cents), never floats.
// Pure functions: no DOM, no network; the tests import them in the browser.

/** "1,234.50" for 123450 minor units. */
export function formatMoney(minor) {
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(minor));
  const major = Math.trunc(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  const cents = String(abs % 100).padStart(2, "0");
  return `${sign}${major}.${cents}`;
}

/** The short face value printed on a chip: 100 -> "1", 2500 -> "25", 50 -> "0.50", 100000 -> "1K". */
export function chipFace(minor) {
  if (minor % 100 !== 0) return formatMoney(minor);
  const major = minor / 100;
  if (major >= 1000 && major % 1000 === 0) return `${major / 1000}K`;
  return String(major);
}

/**
 * The fewest chips of the given denominations that make `amount`, largest first (the bottom
 * of the stack first). Exact by dynamic programming; null when the amount cannot be made.
 */
export function fewestChips(amount, denominations) {
  if (amount === 0) return [];
  const chips = [...denominations].sort((a, b) => a - b);
  const unit = chips.reduce(gcd, amount);
  const steps = amount / unit;
  if (steps > 1e6) return null;
  const best = new Array(steps + 1).fill(Infinity);
  const last = new Array(steps + 1).fill(0);
  best[0] = 0;
  for (let i = 1; i <= steps; i += 1) {
    for (const chip of chips) {
      const k = chip / unit;
      if (k <= i && best[i - k] + 1 < best[i]) {
        best[i] = best[i - k] + 1;
        last[i] = chip;
      }
    }
  }
  if (!Number.isFinite(best[steps])) return null;
  const stack = [];
  for (let i = steps; i > 0; i -= last[i] / unit) stack.push(last[i]);
  return stack.sort((a, b) => b - a);
}

function gcd(a, b) {
  return b === 0 ? a : gcd(b, a % b);
}

/** The stack to draw for `amount`: fewest chips, or a single plaque value when it cannot be made. */
export function stackFor(amount, denominations) {
  return fewestChips(amount, denominations) ?? (amount > 0 ? [amount] : []);
}
