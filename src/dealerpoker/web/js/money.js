// Money and chip arithmetic for display. Amounts are integer minor units, never floats; the
// player's currency (its ISO 4217 exponent, or a configured one such as mBTC) and language say how
// one is written: formatMoney is the one function that turns an amount into text on every page.
// Pure functions: no DOM, no network; the tests import them in the browser.

let currency = { code: "EUR", exponent: 2, symbol: "€" };
let locale = "en";
let formatters = new Map();

/** The currency ({code, exponent, symbol}, as GET /api/games gives it) and language amounts are written in. */
export function setMoneyFormat(next, language = locale) {
  if (next?.code) {
    const iso = currencyOf(next.code === currency.code ? null : next.code);
    currency = { code: next.code, exponent: next.exponent ?? iso.exponent, symbol: next.symbol ?? next.code };
  }
  locale = language || "en";
  formatters = new Map();
}

export function moneyFormat() {
  return { ...currency, language: locale };
}

/** Another currency than the player's (a live table's in the lobby, a back-office row's): its format
 *  as the server gives it ({code, exponent, symbol}), or from its code alone its ISO exponent. */
export function currencyOf(other) {
  if (other?.code) {
    const known = currencyOf(other.code);
    return { code: other.code, exponent: other.exponent ?? known.exponent, symbol: other.symbol ?? other.code };
  }
  const code = other;
  if (!code || code === currency.code) return currency;
  let exponent = 2;
  try {
    exponent = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits;
  } catch {
    // Not an ISO code: two decimals, the code as its symbol.
  }
  return { code, exponent, symbol: code };
}

function formatter(money, signed, bare) {
  const key = `${money.code}/${money.exponent}/${money.symbol}/${signed}/${bare}`;
  if (!formatters.has(key)) {
    const digits = { minimumFractionDigits: money.exponent, maximumFractionDigits: money.exponent };
    const sign = signed ? { signDisplay: "exceptZero" } : {};
    let format;
    try {
      // A code ISO 4217 does not know (mBTC) throws: written as a number and its symbol.
      if (bare) throw new RangeError("bare");
      format = new Intl.NumberFormat(locale, { style: "currency", currency: money.code, ...digits, ...sign });
    } catch {
      const number = new Intl.NumberFormat(locale, { ...digits, ...sign });
      format = { format: (value) => (bare ? number.format(value) : `${number.format(value)}\u00a0${money.symbol}`) };
    }
    formatters.set(key, format);
  }
  return formatters.get(key);
}

/**
 * An amount of minor units in the player's currency and language: "€1,234.50", "1.234,50 €",
 * "¥1,000", "1,00000 mBTC". `signed`: "+" before a gain; `bare`: the number without the currency;
 * `currency`: another currency (a live table's): its {code, exponent, symbol} or its code.
 */
export function formatMoney(minor, { signed = false, bare = false, currency: code = null } = {}) {
  const money = currencyOf(code);
  return formatter(money, signed, bare).format(Math.trunc(minor) / 10 ** money.exponent);
}

/** The short face value printed on a chip: 100 -> "1", 2500 -> "25", 50 -> "0.50", 100000 -> "1K" (EUR). */
export function chipFace(minor) {
  const unit = 10 ** currency.exponent;
  const value = minor / unit;
  if (minor % unit === 0 && value >= 1000 && value % 1000 === 0) return `${value / 1000}K`;
  const fraction = minor % unit === 0 ? 0 : Math.min(2, currency.exponent);
  return new Intl.NumberFormat(locale, { minimumFractionDigits: fraction, maximumFractionDigits: currency.exponent })
    .format(value);
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

/** The total of some amounts (the bets on a table's fields). */
export function sum(values) {
  return values.reduce((a, b) => a + b, 0);
}

/** The stack to draw for `amount`: fewest chips, or a single plaque value when it cannot be made. */
export function stackFor(amount, denominations) {
  return fewestChips(amount, denominations) ?? (amount > 0 ? [amount] : []);
}
