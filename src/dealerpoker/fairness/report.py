"""The operator's report from round records (pure): rounds, stakes, returns, hold.

Solo records hold one player's hand; a live table record (``"seats"``, see
:mod:`dealerpoker.fairness.live_record`) holds every seat's: it counts as one round and as one
hand per seat, and every seat's settlement lines go into the field totals.

Per game and per betting field: how much was staked, returned and held (``stake - returned``),
and each field's actual return beside its exact RTP, when known. A side bet's actual return is
``returned / stake``. The ante's RTP is that of the whole ante game (the ante and the bets
placed by the decisions after it: flop/turn/river or raise) per unit of ante, so its actual
return is ``1 + (net of the ante game) / (ante staked)``; the follow-up fields have no RTP of
their own.

>>> records = [{"game": "casino-holdem", "bets": {"ante": 100, "aa": 100}, "settlement": {"lines": [
...     {"field": "ante", "stake": 100, "returned": 200}, {"field": "raise", "stake": 200, "returned": 400},
...     {"field": "aa", "stake": 100, "returned": 0}]}}]
>>> (game,) = summarize(records)
>>> game.rounds, game.stake, game.returned, game.hold
(1, 400, 600, -200)
>>> print(render_report("2026-11-29", [game], {"casino-holdem": {"ante": None}}))  # doctest: +ELLIPSIS
dealerpoker report for 2026-11-29 (UTC): 1 round(s)
<BLANKLINE>
casino-holdem: 1 round(s), staked 400, returned 600, hold -200 (-50.00%)
  field   bets  staked  returned  hold  hold %  actual return  exact RTP  difference
  ante       1     100       200  -100  -100.00%       400.00%        n/a         n/a
...
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["MAIN_FIELD", "FieldTotals", "GameTotals", "render_report", "report_json", "summarize"]

#: The field whose RTP covers the whole main game (it and every follow-up bet).
MAIN_FIELD = "ante"

RtpTable = Mapping[str, Mapping[str, float | None]]


@dataclass(frozen=True, slots=True)
class FieldTotals:
    field: str
    bets: int
    stake: int
    returned: int

    @property
    def hold(self) -> int:
        return self.stake - self.returned

    @property
    def actual_return(self) -> float | None:
        """Returned per unit staked (display only; the totals are exact integers)."""
        return self.returned / self.stake if self.stake else None


@dataclass(frozen=True, slots=True)
class GameTotals:
    game: str
    rounds: int
    fields: tuple[FieldTotals, ...]
    ante_game_net: int = 0
    """Net to the players of the ante and its follow-up bets (flop/turn/river or raise)."""
    follow_ups: tuple[str, ...] = ()
    hands: int = 0
    """Players' hands settled: one per solo round, one per seat of a live round."""
    live_rounds: int = 0

    def actual_return(self, field: FieldTotals) -> float | None:
        """What compares with the field's exact RTP (see the module docstring)."""
        if field.field == MAIN_FIELD and field.stake:
            return 1 + self.ante_game_net / field.stake
        return field.actual_return

    @property
    def stake(self) -> int:
        return sum(f.stake for f in self.fields)

    @property
    def returned(self) -> int:
        return sum(f.returned for f in self.fields)

    @property
    def hold(self) -> int:
        return self.stake - self.returned


def _hands(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Each player's part of a record: ``{bets, settlement}`` (every seat of a live round)."""
    seats = record.get("seats")
    return list(seats) if isinstance(seats, list) else [record]


def summarize(records: Iterable[Mapping[str, Any]]) -> list[GameTotals]:
    """Totals per game (sorted by name), fields in the order first seen."""
    rounds: dict[str, int] = {}
    hands: dict[str, int] = {}
    live: dict[str, int] = {}
    fields: dict[str, dict[str, list[int]]] = {}
    ante_net: dict[str, int] = {}
    follow_ups: dict[str, dict[str, None]] = {}
    for record in records:
        game = str(record["game"])
        rounds[game] = rounds.get(game, 0) + 1
        live[game] = live.get(game, 0) + (record.get("mode") == "table")
        per_field = fields.setdefault(game, {})
        for hand in _hands(record):
            hands[game] = hands.get(game, 0) + 1
            _add_hand(hand, per_field, ante_net, follow_ups.setdefault(game, {}), game)
    return [
        GameTotals(game, rounds[game], tuple(FieldTotals(f, *t) for f, t in fields[game].items()),
                   ante_net.get(game, 0), tuple(follow_ups.get(game, {})), hands[game], live[game])
        for game in sorted(rounds)
    ]


def _add_hand(hand: Mapping[str, Any], per_field: dict[str, list[int]], ante_net: dict[str, int],
              follow_ups: dict[str, None], game: str) -> None:
    opening = set(hand.get("bets") or {MAIN_FIELD: 0})
    for line in (hand.get("settlement") or {}).get("lines", []):
        name = str(line["field"])
        totals = per_field.setdefault(name, [0, 0, 0])
        totals[0] += 1
        totals[1] += int(line["stake"])
        totals[2] += int(line["returned"])
        if name == MAIN_FIELD or name not in opening:
            ante_net[game] = ante_net.get(game, 0) + int(line["returned"]) - int(line["stake"])
        if name not in opening:
            follow_ups[name] = None


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def render_report(period: str, games: list[GameTotals], rtp: RtpTable) -> str:
    """The report as text; ``period`` names the day or range (UTC) it covers."""
    total = sum(g.rounds for g in games)
    lines = [f"dealerpoker report for {period} (UTC): {total} round(s)"]
    for game in games:
        share = game.hold / game.stake if game.stake else None
        live = f" ({game.live_rounds} live, {game.hands} player hands)" if game.live_rounds else ""
        lines += ["", f"{game.game}: {game.rounds} round(s){live}, staked {game.stake}, "
                      f"returned {game.returned}, hold {game.hold} ({_percent(share)})",
                  "  field   bets  staked  returned  hold  hold %  actual return  exact RTP  difference"]
        for f in game.fields:
            exact = rtp.get(game.game, {}).get(f.field)
            actual = game.actual_return(f)
            difference = None if exact is None or actual is None else actual - exact
            hold_share = None if f.actual_return is None else 1 - f.actual_return
            diff_text = "n/a" if difference is None else f"{100 * difference:+.2f} pp"
            lines.append(
                f"  {f.field:<6} {f.bets:>5} {f.stake:>7} {f.returned:>9} {f.hold:>5}  "
                f"{_percent(hold_share)} {_percent(actual):>13} {_percent(exact):>10} {diff_text:>11}")
    if not games:
        lines.append("no settled rounds")
    else:
        lines += ["", f"actual return of the {MAIN_FIELD}: its whole game (with the follow-up bets) per unit "
                      f"of {MAIN_FIELD}, as its RTP is defined; follow-up bets have no RTP of their own"]
    return "\n".join(lines)


def report_json(period: str, games: list[GameTotals], rtp: RtpTable) -> dict[str, Any]:
    return {
        "date": period,
        "rounds": sum(g.rounds for g in games),
        "games": [{
            "game": g.game, "rounds": g.rounds, "live_rounds": g.live_rounds, "hands": g.hands,
            "stake": g.stake, "returned": g.returned, "hold": g.hold,
            "fields": [{
                "field": f.field, "bets": f.bets, "stake": f.stake, "returned": f.returned, "hold": f.hold,
                "actual_return": g.actual_return(f), "exact_rtp": rtp.get(g.game, {}).get(f.field),
                "follow_up": f.field in g.follow_ups,
            } for f in g.fields],
        } for g in games],
    }
