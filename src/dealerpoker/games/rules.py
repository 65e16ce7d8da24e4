"""Rules and paytables as data: TOML files shipped in the package, or a user's file.

Variants differ by data, never by code branches. Every entry is validated on load and an
error names the file and the entry.

>>> rules = load_rules("casino-holdem")
>>> rules.ante_paytable[HandCategory.ROYAL_FLUSH], rules.dealer_qualifier_rank.plural
(100, 'Fours')
>>> load_rules("texas-bonus", overrides={"ante_qualifier": "straight"}).ante_qualifier.slug
'straight'
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from dealerpoker.cards import RANK_CHARS, Rank
from dealerpoker.errors import InvalidRulesError
from dealerpoker.evaluator.categories import HandCategory

GAMES = ("texas-bonus", "casino-holdem")
GameId = Literal["texas-bonus", "casino-holdem"]
"""A game's id, as a request model states it (one of ``GAMES``: checked where both are read)."""
assert get_args(GameId) == GAMES
LEGACY_FINGERPRINT_LENGTH = 16
"""Hex characters of the rules fingerprint before issue 15 (its first 64 bits)."""


@dataclass(frozen=True, slots=True)
class FieldLimit:
    min: int
    max: int


@dataclass(frozen=True, slots=True)
class BonusLine:
    """One Bonus paytable row: the two-card hands it covers and what it pays (N to 1)."""

    name: str
    hands: tuple[str, ...]
    pays: int


@dataclass(frozen=True, slots=True)
class CommonRules:
    game: str
    title: str
    rules_version: str
    chips: tuple[int, ...]
    limits: Mapping[str, FieldLimit]
    timeout_actions: Mapping[str, str]
    betting_seconds: int
    decision_seconds: int
    source: Mapping[str, Any] = field(repr=False, compare=False)
    # The fingerprint once computed: a live table checks it with every bet of thousands.
    _fingerprint: str | None = field(default=None, init=False, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The rules as plain JSON-able data (the merged TOML document)."""
        return json.loads(json.dumps(self.source))  # type: ignore[no-any-return]

    def fingerprint(self) -> str:
        """The SHA-256 (64 hex) of the rules' canonical JSON: for caches, round records and
        ``GET /api/rules/{fingerprint}``. Records made before issue 15 cite its first
        ``LEGACY_FINGERPRINT_LENGTH`` hex characters (64 bits), still read by the verifier."""
        if self._fingerprint is None:
            canonical = json.dumps(self.source, sort_keys=True, separators=(",", ":"))
            object.__setattr__(self, "_fingerprint", hashlib.sha256(canonical.encode()).hexdigest())
        assert self._fingerprint is not None
        return self._fingerprint


@dataclass(frozen=True, slots=True)
class TexasBonusRules(CommonRules):
    ante_qualifier: HandCategory = HandCategory.FLUSH
    bonus_paytable: tuple[BonusLine, ...] = ()
    both_aces_pays: int = 0


@dataclass(frozen=True, slots=True)
class CasinoHoldemRules(CommonRules):
    dealer_qualifier_rank: Rank = Rank.FOUR
    aa_settles_on_fold: bool = False
    aa_min_pair_rank: Rank = Rank.ACE
    ante_paytable: Mapping[HandCategory, int] = field(default_factory=dict)
    aa_paytable: Mapping[HandCategory, int] = field(default_factory=dict)


Rules = TexasBonusRules | CasinoHoldemRules

_FIELDS = {"texas-bonus": ("ante", "bonus"), "casino-holdem": ("ante", "aa")}
# Each game's decision points and the actions a timer may choose there (the legal actions).
_TIMEOUT_CHOICES: dict[str, dict[str, tuple[str, ...]]] = {
    "texas-bonus": {"preflop": ("fold", "bet"), "flop": ("check", "bet"), "turn": ("check", "bet")},
    "casino-holdem": {"flop": ("fold", "raise")},
}


def _merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def default_rules_document(game: str) -> dict[str, Any]:
    """The game's shipped rules as a document of its own (the caller may change it)."""
    if game not in GAMES:
        raise InvalidRulesError(f"unknown game {game!r} (expected one of {', '.join(GAMES)})")
    return copy.deepcopy(_shipped_document(game))


@functools.cache
def _shipped_document(game: str) -> dict[str, Any]:
    # Parsed once per process: a server builds every currency's and operator's rules from it
    # (180 parses of the same file for the default offer, a third of create_app's time).
    text = resources.files("dealerpoker.games").joinpath(f"rules/{game}.toml").read_text("utf-8")
    return tomllib.loads(text)


def load_rules(
    game: str,
    path: str | Path | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
) -> Rules:
    """The game's shipped rules, merged with a user's TOML file and then ``overrides``."""
    document = default_rules_document(game)
    where = f"{game} rules"
    if path is not None:
        where = str(path)
        try:
            user = tomllib.loads(Path(path).read_text("utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as error:
            raise InvalidRulesError(f"{path}: cannot read rules file: {error}") from None
        if user.get("game", game) != game:
            raise InvalidRulesError(f"{path}: game: file is for {user['game']!r}, not {game!r}")
        document = _merge(document, user)
    if overrides:
        document = _merge(document, overrides)
    return rules_from_document(document, where=where)


def field_overrides(
    game: str, limits: Mapping[str, Mapping[str, int]], chips: tuple[int, ...] | None
) -> dict[str, Any]:
    """Rule overrides setting ``limits`` (betting field -> ``{min, max}``, for every game that has
    the field) and ``chips`` for ``game``: what a currency's (or an operator's) table settings
    change in a game's rules.

    >>> field_overrides("casino-holdem", {"ante": {"min": 100, "max": 900}, "bonus": {"min": 1, "max": 9}},
    ...                 (100, 500))
    {'limits': {'ante': {'min': 100, 'max': 900}}, 'chips': [100, 500]}
    """
    overrides: dict[str, Any] = {}
    mine = {name: dict(limit) for name, limit in limits.items() if name in _FIELDS[game]}
    if mine:
        overrides["limits"] = mine
    if chips is not None:
        overrides["chips"] = list(chips)
    return overrides


#: Every betting field of every game (a currency's limits may name any of them).
ALL_FIELDS = tuple(dict.fromkeys(name for fields in _FIELDS.values() for name in fields))


def rules_from_document(document: Mapping[str, Any], *, where: str = "rules") -> Rules:
    reader = _Reader(document, where)
    game = reader.choice("game", GAMES)
    chips, limits = reader.chips(), reader.limits(_FIELDS[game])
    reader.chips_make_limits(chips, limits)
    common = dict(
        game=game,
        title=reader.text("title"),
        rules_version=reader.text("rules_version"),
        chips=chips,
        limits=limits,
        timeout_actions=reader.timeouts(_TIMEOUT_CHOICES[game]),
        betting_seconds=reader.positive_int("timers", "betting_seconds"),
        decision_seconds=reader.positive_int("timers", "decision_seconds"),
        source=json.loads(json.dumps(document)),
    )
    if game == "texas-bonus":
        qualifier = reader.choice("ante_qualifier", ("flush", "straight"))
        return TexasBonusRules(
            **common,
            ante_qualifier=HandCategory.from_slug(qualifier),
            bonus_paytable=reader.bonus_paytable(),
            both_aces_pays=reader.non_negative_int("bonus_both_aces", "pays"),
        )
    return CasinoHoldemRules(
        **common,
        dealer_qualifier_rank=reader.pair_rank("dealer_qualifier"),
        aa_settles_on_fold=reader.boolean("aa_settles_on_fold"),
        aa_min_pair_rank=_rank_from_text(reader.text("aa_min_pair"), f"{where}: aa_min_pair"),
        ante_paytable=reader.category_paytable("ante_paytable", require_all=True),
        aa_paytable=reader.category_paytable("aa_paytable", require_all=False),
    )


def _rank_from_text(text: str, where: str) -> Rank:
    if text not in RANK_CHARS:
        raise InvalidRulesError(f"{where}: {text!r} is not a rank (2-9, T, J, Q, K, A)")
    return Rank(RANK_CHARS.index(text))


class _Reader:
    """Typed access to a rules document; every failure names the entry."""

    def __init__(self, document: Mapping[str, Any], where: str) -> None:
        self.document = document
        self.where = where

    def _get(self, *keys: str) -> Any:
        node: Any = self.document
        for depth, key in enumerate(keys):
            if not isinstance(node, Mapping) or key not in node:
                raise InvalidRulesError(f"{self.where}: missing entry {'.'.join(keys[:depth + 1])}")
            node = node[key]
        return node

    def _fail(self, entry: str, problem: str) -> InvalidRulesError:
        return InvalidRulesError(f"{self.where}: {entry}: {problem}")

    def text(self, key: str) -> str:
        value = self._get(key)
        if not isinstance(value, str) or not value:
            raise self._fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def choice(self, key: str, options: tuple[str, ...]) -> str:
        value = self._get(key)
        if value not in options:
            raise self._fail(key, f"expected one of {', '.join(options)}, got {value!r}")
        return str(value)

    def boolean(self, key: str) -> bool:
        value = self._get(key)
        if not isinstance(value, bool):
            raise self._fail(key, f"expected true or false, got {value!r}")
        return value

    def _int(self, keys: tuple[str, ...], minimum: int) -> int:
        value = self._get(*keys)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self._fail(".".join(keys), f"expected an integer >= {minimum}, got {value!r}")
        return value

    def positive_int(self, *keys: str) -> int:
        return self._int(keys, 1)

    def non_negative_int(self, *keys: str) -> int:
        return self._int(keys, 0)

    def chips(self) -> tuple[int, ...]:
        value = self._get("chips")
        if (not isinstance(value, list) or not value
                or any(isinstance(c, bool) or not isinstance(c, int) or c <= 0 for c in value)):
            raise self._fail("chips", f"expected a list of positive integers, got {value!r}")
        if sorted(set(value)) != value:
            raise self._fail("chips", "denominations must be distinct and ascending")
        return tuple(value)

    def limits(self, fields: tuple[str, ...]) -> dict[str, FieldLimit]:
        table = self._get("limits")
        unknown = set(table) - set(fields)
        if unknown:
            raise self._fail(f"limits.{sorted(unknown)[0]}", f"unknown field (fields: {', '.join(fields)})")
        limits = {}
        for name in fields:
            low = self.positive_int("limits", name, "min")
            high = self.positive_int("limits", name, "max")
            if high < low:
                raise self._fail(f"limits.{name}", f"max {high} is below min {low}")
            limits[name] = FieldLimit(low, high)
        return limits

    def chips_make_limits(self, chips: tuple[int, ...], limits: Mapping[str, FieldLimit]) -> None:
        """A table never offers a chip below its smallest minimum bet, and every field's minimum
        can be made with its chips (else the page would show a minimum no chip can make)."""
        smallest = min(limit.min for limit in limits.values())
        if chips[0] < smallest:
            raise self._fail("chips", f"{chips[0]} is below the smallest minimum bet ({smallest})")
        for name, limit in limits.items():
            if not makeable(limit.min, chips):
                raise self._fail(f"limits.{name}.min",
                                 f"{limit.min} cannot be made with the chips ({', '.join(map(str, chips))})")

    def timeouts(self, choices: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
        table = self._get("timeout_actions")
        actions = {}
        for point, allowed in choices.items():
            action = self._get("timeout_actions", point)
            if action not in allowed:
                raise self._fail(f"timeout_actions.{point}",
                                 f"expected one of {', '.join(allowed)}, got {action!r}")
            actions[point] = str(action)
        unknown = set(table) - set(choices)
        if unknown:
            raise self._fail(f"timeout_actions.{sorted(unknown)[0]}", "unknown decision point")
        return actions

    def pair_rank(self, key: str) -> Rank:
        text = self.text(key)
        if len(text) != 2 or text[0] != text[1]:
            raise self._fail(key, f"expected a pair such as '44', got {text!r}")
        return _rank_from_text(text[0], f"{self.where}: {key}")

    def category_paytable(self, key: str, *, require_all: bool) -> dict[HandCategory, int]:
        table = self._get(key)
        if not isinstance(table, Mapping):
            raise self._fail(key, "expected a table of category = pays")
        paytable: dict[HandCategory, int] = {}
        for slug in table:
            try:
                category = HandCategory.from_slug(slug)
            except ValueError:
                raise self._fail(f"{key}.{slug}", "unknown hand category") from None
            paytable[category] = self.non_negative_int(key, slug)
        missing = [c.slug for c in HandCategory if c not in paytable]
        if require_all and missing:
            raise self._fail(f"{key}.{missing[0]}", "missing (every category needs a payout)")
        return paytable

    def bonus_paytable(self) -> tuple[BonusLine, ...]:
        rows = self._get("bonus_paytable")
        if not isinstance(rows, list) or not rows:
            raise self._fail("bonus_paytable", "expected a list of [[bonus_paytable]] rows")
        seen: dict[str, str] = {}
        lines = []
        for number, row in enumerate(rows):
            entry = f"bonus_paytable[{number}]"
            if not isinstance(row, Mapping):
                raise self._fail(entry, "expected a table with name, hands, pays")
            name = row.get("name")
            if not isinstance(name, str) or not name:
                raise self._fail(f"{entry}.name", f"expected a name, got {name!r}")
            hands = row.get("hands")
            if not isinstance(hands, list) or not hands:
                raise self._fail(f"{entry}.hands", "expected a list such as ['AKs', 'AKo', 'AA']")
            for hand in hands:
                if not _is_starting_hand(hand):
                    raise self._fail(f"{entry}.hands", f"{hand!r} is not a starting hand like AA, AKs, AKo")
                if hand in seen:
                    raise self._fail(f"{entry}.hands", f"{hand} is already paid by {seen[hand]!r}")
                seen[hand] = name
            pays = row.get("pays")
            if isinstance(pays, bool) or not isinstance(pays, int) or pays < 0:
                raise self._fail(f"{entry}.pays", f"expected an integer >= 0, got {pays!r}")
            lines.append(BonusLine(name, tuple(hands), pays))
        return tuple(lines)


def makeable(amount: int, chips: tuple[int, ...]) -> bool:
    """Whether ``amount`` is a sum of chips (any number of each denomination).

    >>> makeable(350, (100, 250)), makeable(150, (100, 250)), makeable(0, (100,))
    (True, False, True)
    """
    # Bit i of ``sums`` says whether i can be made; adding up to 2**k - 1 chips of one
    # denomination takes k shifts, so this is fast even for amounts in the millions.
    mask = (1 << (amount + 1)) - 1
    sums = 1
    for chip in chips:
        step = chip
        while step <= amount:
            sums = (sums | sums << step) & mask
            step *= 2
    return bool(sums >> amount & 1)


def _is_starting_hand(hand: object) -> bool:
    if not isinstance(hand, str):
        return False
    if len(hand) == 2:
        return hand[0] == hand[1] and hand[0] in RANK_CHARS
    return (len(hand) == 3 and hand[0] in RANK_CHARS and hand[1] in RANK_CHARS
            and RANK_CHARS.index(hand[0]) > RANK_CHARS.index(hand[1]) and hand[2] in "so")


def starting_hand_class(high: Rank, low: Rank, suited: bool) -> str:
    """``"AA"``, ``"AKs"`` or ``"AKo"`` for two hole cards (``high >= low``)."""
    if high == low:
        return high.char * 2
    if high < low:
        high, low = low, high
    return f"{high.char}{low.char}{'s' if suited else 'o'}"
