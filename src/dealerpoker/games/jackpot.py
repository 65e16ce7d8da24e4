"""The progressive "first five" jackpot side bet, as data: what it costs and what it pays.

The bet is settled on the player's first five cards (the two hole cards and the flop), in both
games, whatever the player decides later. A hand of the pool's category (a royal flush) wins the
pool, shared by every jackpot bet of the round that hit it; lower hands win fixed awards. Each
stake adds ``contribution`` of itself to the pool; when the pool is won it starts again at
``seed``. Amounts are integer minor units of the pool's ``currency``; a player of another
currency stakes and is paid at the deployment's ``rates`` (``to_currency``, rounded down).

>>> rules = load_jackpot()
>>> rules.stake, rules.currency, rules.pool_category.slug
(100, 'EUR', 'royal-flush')
>>> rules.awards[HandCategory.STRAIGHT_FLUSH]
250000
>>> from dealerpoker.cards.encoding import indices_from_text
>>> deck = indices_from_text("Ah Kh 2c 3d Qh Jh Th 4s 5s")   # player, dealer, flop, turn, river
>>> first_five_result(rules, first_five(deck))
FirstFive(category=<HandCategory.ROYAL_FLUSH: 9>, wins_pool=True, award=0)
>>> contribution_of(rules), share_pool(1_000_001, 2)
(20, (500000, 1))
>>> to_currency(rules, 3000, "JPY", from_exponent=2, to_exponent=0)  # 30.00 EUR at 160 yen
4800
>>> load_jackpot(overrides={"awards": {"royal-flush": 5}})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
dealerpoker.errors.InvalidRulesError: jackpot: awards: 'royal-flush' is the pool's category...
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

from dealerpoker.cards.encoding import indices_to_cards
from dealerpoker.errors import InvalidRulesError
from dealerpoker.evaluator.api import evaluate
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.money import MAX_AMOUNT

SHARING_RULES = ("equal",)
"""How a pool hit by several bets in one round is shared: ``equal`` splits it evenly (the
indivisible remainder of minor units stays in the pool for the next winner)."""

_KEYS = {"stake", "currency", "pool_category", "awards", "contribution", "seed", "sharing", "rates"}
_OPTIONAL = {"rates"}


@dataclass(frozen=True, slots=True)
class JackpotRules:
    stake: int
    currency: str
    pool_category: HandCategory
    awards: Mapping[HandCategory, int]
    contribution: Fraction
    """The share of each stake added to the pool."""
    seed: int
    sharing: str
    rates: Mapping[str, Fraction] = field(default_factory=dict)
    """Units of each other currency one unit of the pool's currency is worth (the pool's own: 1)."""

    def to_dict(self) -> dict[str, Any]:
        return {"stake": self.stake, "currency": self.currency, "pool_category": self.pool_category.slug,
                "awards": {category.slug: amount for category, amount in self.awards.items()},
                "contribution": str(self.contribution), "seed": self.seed, "sharing": self.sharing,
                "rates": {code: str(rate) for code, rate in self.rates.items()}}

    @property
    def currencies(self) -> tuple[str, ...]:
        """The currencies the bet is offered in: the pool's and every one with a rate."""
        return (self.currency, *sorted(self.rates))


@dataclass(frozen=True, slots=True)
class FirstFive:
    """The jackpot bet's result on the player's first five cards."""

    category: HandCategory
    wins_pool: bool
    award: int
    """The fixed award in the pool's currency (0 for the pool's hand and for a losing hand)."""


def first_five(deck: Sequence[int]) -> tuple[int, ...]:
    """The player's first five cards of a round's deck (dealing order: hole cards 0-1, flop 4-6)."""
    return (*deck[0:2], *deck[4:7])


def first_five_result(rules: JackpotRules, cards: Sequence[int]) -> FirstFive:
    """What the bet wins on these five cards (card indices)."""
    category = evaluate(indices_to_cards(cards)).category
    if category is rules.pool_category:
        return FirstFive(category, True, 0)
    return FirstFive(category, False, rules.awards.get(category, 0))


def contribution_of(rules: JackpotRules) -> int:
    """What one bet adds to the pool (minor units of the pool's currency, rounded down)."""
    return int(rules.stake * rules.contribution)


def share_pool(pool: int, winners: int) -> tuple[int, int]:
    """Each winner's equal share of ``pool`` and the remainder of minor units that stays in it."""
    if winners < 1:
        raise ValueError(f"a pool is shared by at least one winner, not {winners}")
    return divmod(pool, winners)


def to_currency(rules: JackpotRules, amount: int, currency: str, *, from_exponent: int,
                to_exponent: int) -> int:
    """``amount`` minor units of the pool's currency in minor units of ``currency`` (a player's), at
    the configured rate, rounded down. ``*_exponent``: the decimals of each currency's minor unit.
    Raises ``KeyError`` for a currency without a rate."""
    rate = Fraction(1) if currency == rules.currency else rules.rates[currency]
    return int(amount * rate * Fraction(10) ** (to_exponent - from_exponent))


def load_jackpot(path: str | Path | None = None, *,
                 overrides: Mapping[str, Any] | None = None) -> JackpotRules:
    """The shipped jackpot (``games/rules/jackpot.toml``) or a deployment's file, validated."""
    if path is None:
        text = resources.files("dealerpoker.games").joinpath("rules/jackpot.toml").read_text("utf-8")
        where = "jackpot"
    else:
        text = Path(path).read_text("utf-8")
        where = str(path)
    try:
        data: dict[str, Any] = tomllib.loads(text).get("jackpot", {})
    except tomllib.TOMLDecodeError as error:
        raise InvalidRulesError(f"{where}: not TOML: {error}") from None
    data = {**data, **(overrides or {})}
    return _parse(data, where)


def _parse(data: Mapping[str, Any], where: str) -> JackpotRules:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise InvalidRulesError(f"{where}: unknown entries {unknown}; known: {sorted(_KEYS)}")
    missing = sorted(_KEYS - _OPTIONAL - set(data))
    if missing:
        raise InvalidRulesError(f"{where}: missing entries {missing}")
    stake = _amount(data["stake"], f"{where}: stake", minimum=1)
    seed = _amount(data["seed"], f"{where}: seed", minimum=0)
    currency = data["currency"]
    if not (isinstance(currency, str) and len(currency) in (3, 4) and currency.isalpha()):
        raise InvalidRulesError(f"{where}: currency: expected a currency code like 'EUR', got {currency!r}")
    pool_category = _category(data["pool_category"], f"{where}: pool_category")
    awards_in = data["awards"]
    if not isinstance(awards_in, Mapping):
        raise InvalidRulesError(f"{where}: awards: expected a table of hand category = amount")
    awards: dict[HandCategory, int] = {}
    for slug, amount in awards_in.items():
        category = _category(slug, f"{where}: awards")
        if category is pool_category:
            raise InvalidRulesError(f"{where}: awards: {slug!r} is the pool's category: it wins the pool, "
                                    "not a fixed award")
        if category > pool_category:
            raise InvalidRulesError(f"{where}: awards: {slug!r} ranks above the pool's category")
        awards[category] = _amount(amount, f"{where}: awards: {slug}", minimum=1)
    contribution = _fraction(data["contribution"], f"{where}: contribution")
    sharing = data["sharing"]
    if sharing not in SHARING_RULES:
        raise InvalidRulesError(f"{where}: sharing: expected one of {list(SHARING_RULES)}, got {sharing!r}")
    rates = _rates(data.get("rates", {}), f"{where}: rates", currency.upper())
    return JackpotRules(stake=stake, currency=currency.upper(), pool_category=pool_category,
                        awards=dict(sorted(awards.items(), reverse=True)), contribution=contribution,
                        seed=seed, sharing=sharing, rates=rates)


def _rates(value: Any, what: str, pool_currency: str) -> dict[str, Fraction]:
    if not isinstance(value, Mapping):
        raise InvalidRulesError(f"{what}: expected a table of currency = \"rate\" (units of it per "
                                f"{pool_currency})")
    rates: dict[str, Fraction] = {}
    for code, rate in value.items():
        if not (isinstance(code, str) and 2 <= len(code) <= 8 and code.isalpha()):
            raise InvalidRulesError(f"{what}: {code!r} is not a currency code")
        if code == pool_currency:
            raise InvalidRulesError(f"{what}: {code} is the pool's currency (its rate is 1)")
        try:
            exact = Fraction(str(rate))
        except (ValueError, ZeroDivisionError):
            exact = Fraction(0)
        if isinstance(rate, bool) or exact <= 0:
            raise InvalidRulesError(f"{what}: {code}: expected a positive rate like \"1.08\", got {rate!r}")
        rates[code] = exact
    return dict(sorted(rates.items()))


def _amount(value: Any, what: str, *, minimum: int) -> int:
    if type(value) is not int or not minimum <= value <= MAX_AMOUNT:
        raise InvalidRulesError(f"{what}: expected an integer amount in minor units, "
                                f"{minimum}..{MAX_AMOUNT}, got {value!r}")
    return value


def _category(slug: Any, what: str) -> HandCategory:
    try:
        return HandCategory.from_slug(str(slug))
    except ValueError:
        names = [category.slug for category in HandCategory]
        raise InvalidRulesError(f"{what}: unknown hand category {slug!r}; known: {names}") from None


def _fraction(value: Any, what: str) -> Fraction:
    try:
        share = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise InvalidRulesError(f"{what}: expected a share like \"0.2\" or \"1/5\", got {value!r}") from None
    if not 0 <= share < 1:
        raise InvalidRulesError(f"{what}: the share of a stake must be at least 0 and below 1, got {value!r}")
    return share
