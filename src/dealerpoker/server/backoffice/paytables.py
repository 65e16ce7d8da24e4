"""Games and paytables in the back office: the configured rules of each game with each bet's exact
RTP, and an admin's draft with its exact figures before anything is saved.

A draft is a JSON document of changes merged over the rules in force (its paytables, ante rule or
qualifier, timeouts, timers; not the limits and chips, which are each currency's). An entry the
game's rules do not have (a typo, another game's paytable) is refused, named; so is a draft whose
exact RTP of any bet, or in total, is outside the deployment's bounds (``Settings.rtp_bounds``).
Saving and going live are ``rules_changes``'.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dealerpoker.analysis.rtp import bet_rtps
from dealerpoker.errors import DealerPokerError, InvalidRulesError
from dealerpoker.games import GAMES, AnyGame
from dealerpoker.games.money import MAX_AMOUNT
from dealerpoker.games.rules import Rules
from dealerpoker.server.backoffice.analyses import Analyses
from dealerpoker.server.errors import UnknownGameError
from dealerpoker.server.services import Services

FIXED = ("game", "limits", "chips", "rules_version")
"""What a draft may not change (the game; the limits and chips are each currency's; the version
label is the server's)."""


class DraftError(DealerPokerError, ValueError):
    """A draft that is not valid rules (the message names the entry); nothing was saved."""

    code = "invalid_rules"
    status = 422


def draft_rules(services: Services, game: str, changes: Any) -> Rules:
    """The default currency's rules of ``game`` with ``changes`` merged over what is configured now."""
    if game not in GAMES:
        raise UnknownGameError(f"unknown game {game!r} (games: {', '.join(GAMES)})")
    if not isinstance(changes, Mapping):
        raise DraftError('a draft is a JSON object of rules entries, e.g. {"ante_paytable": {"flush": 3}}')
    _bounded(changes, "")
    fixed = sorted(set(changes) & set(FIXED))
    if fixed:
        raise DraftError(f"{fixed[0]}: not changed by a draft (limits and chips are each currency's)")
    currencies = services.offer.currencies
    current = current_changes(services, game)
    unknown = unknown_entries(services.games[game].rules.to_dict(), changes)
    if unknown:
        raise DraftError(f"unknown rules entr{'y' if len(unknown) == 1 else 'ies'} for {game}: "
                         f"{', '.join(unknown)} (nothing was saved)")
    try:
        return currencies.tables[currencies.default].rules(game, merge(current, changes))
    except InvalidRulesError as error:
        raise DraftError(str(error)) from None


def _bounded(value: Any, path: str) -> None:
    """Refuse any number in a draft beyond ``MAX_AMOUNT`` (a payout, an amount: beyond 64 bits
    nothing further could compute with it), naming its entry."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            _bounded(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _bounded(item, f"{path}[{index}]")
    elif isinstance(value, int | float) and not isinstance(value, bool) and abs(value) > MAX_AMOUNT:
        raise DraftError(f"{path}: {value} is beyond the largest number a draft may hold ({MAX_AMOUNT})")


def unknown_entries(known: Mapping[str, Any], changes: Mapping[str, Any], prefix: str = "") -> list[str]:
    """The entries of ``changes`` that ``known`` (a rules document) has not, as dotted paths: a
    draft that would silently change nothing is refused instead.

    >>> unknown_entries({"ante_paytable": {"flush": 1}, "bonus": 2}, {"ante_paytable": {"flsh": 3}, "x": 1})
    ['ante_paytable.flsh', 'x']
    """
    found = []
    for key, value in changes.items():
        path = f"{prefix}{key}"
        if key not in known:
            found.append(path)
        elif isinstance(value, Mapping) and isinstance(known[key], Mapping):
            found.extend(unknown_entries(known[key], value, f"{path}."))
        elif isinstance(value, list) and isinstance(known[key], list):
            names = {name for entry in known[key] if isinstance(entry, Mapping) for name in entry}
            for index, entry in enumerate(value):
                if isinstance(entry, Mapping) and names:
                    found.extend(f"{path}[{index}].{name}" for name in entry if name not in names)
    return sorted(found)


def merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def current_changes(services: Services, game: str) -> dict[str, Any]:
    """The changes of the version in force (``{}``: the configured rules as started)."""
    return dict(services.rules_versions.get(game, {}))


async def figures(analyses: Analyses, rules: Rules) -> dict[str, Any]:
    """The exact house edge of the main game (per unit of ante), each bet's RTP (the ante's per
    unit of ante) and the main game's RTP in total (per unit staked: ante and the bets that
    follow it, ``1 - element of risk``), with the time the analysis took."""
    started = time.perf_counter()
    document = await analyses.document(rules)
    rtps = bet_rtps(rules, _Known(document))
    exact = document["rules"]["exact"]
    total = 1 - Fraction(exact["element_of_risk"])
    return {"fingerprint": rules.fingerprint(), "rules_version": rules.rules_version,
            "house_edge": exact["house_edge"], "house_edge_float": float(Fraction(exact["house_edge"])),
            "rtps": {field: None if value is None else {"exact": str(value), "float": float(value)}
                     for field, value in rtps.items()},
            "total_rtp": {"exact": str(total), "float": float(total)},
            "seconds": round(time.perf_counter() - started, 3)}


def out_of_bounds(found: Mapping[str, Any], bounds: tuple[Fraction, Fraction]) -> list[str]:
    """Each exact RTP of ``figures`` outside ``bounds`` (inclusive), named with its value.

    >>> out_of_bounds({"rtps": {"ante": {"exact": "1001/1000"}, "raise": None},
    ...                "total_rtp": {"exact": "99/100"}}, (Fraction(9, 10), Fraction(1)))
    ['ante: 100.1000% (exactly 1001/1000)']
    """
    low, high = bounds
    named = {**{f: v for f, v in found["rtps"].items() if v is not None}, "total": found["total_rtp"]}
    return [f"{name}: {float(Fraction(value['exact'])):.4%} (exactly {value['exact']})"
            for name, value in named.items() if not low <= Fraction(value["exact"]) <= high]


def check_bounds(found: Mapping[str, Any], bounds: tuple[Fraction, Fraction]) -> None:
    """Refuse figures with an RTP outside ``bounds`` (422 ``rtp_out_of_bounds``, each named)."""
    outside = out_of_bounds(found, bounds)
    if outside:
        low, high = bounds
        raise RtpBoundsError(f"RTP outside this deployment's bounds ({float(low):.2%} to {float(high):.2%}): "
                             f"{'; '.join(outside)}. Nothing was saved.")


class RtpBoundsError(DealerPokerError, ValueError):
    """A paytable whose exact RTP of a bet, or in total, is outside the deployment's bounds."""

    code = "rtp_out_of_bounds"
    status = 422


class _Known:
    """An analysis cache holding one document (so ``bet_rtps`` reads the one just computed)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def load(self, key: str) -> dict[str, Any] | None:
        return self.document

    def save(self, key: str, document: dict[str, Any], tables: dict[str, Any]) -> None:
        raise AssertionError("nothing to save")


def engine_summary(engine: AnyGame) -> dict[str, Any]:
    return {"game": engine.name, "fingerprint": engine.rules.fingerprint(),
            "rules_version": engine.rules.rules_version, "rules": engine.rules.to_dict()}
