"""The operator's daily report from round records (pure): rounds, stakes, returns, hold.

Per game and per betting field: how much was staked, returned and held (``stake - returned``),
and each field's actual return (``returned / stake``) beside its exact RTP, when known.

>>> records = [{"game": "casino-holdem", "settlement": {"lines": [
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
  ante       1     100       200  -100  -100.00%       200.00%        n/a         n/a
...
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["FieldTotals", "GameTotals", "render_report", "report_json", "summarize"]

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

    @property
    def stake(self) -> int:
        return sum(f.stake for f in self.fields)

    @property
    def returned(self) -> int:
        return sum(f.returned for f in self.fields)

    @property
    def hold(self) -> int:
        return self.stake - self.returned


def summarize(records: Iterable[Mapping[str, Any]]) -> list[GameTotals]:
    """Totals per game (sorted by name), fields in the order first seen."""
    rounds: dict[str, int] = {}
    fields: dict[str, dict[str, list[int]]] = {}
    for record in records:
        game = str(record["game"])
        rounds[game] = rounds.get(game, 0) + 1
        per_field = fields.setdefault(game, {})
        for line in (record.get("settlement") or {}).get("lines", []):
            totals = per_field.setdefault(str(line["field"]), [0, 0, 0])
            totals[0] += 1
            totals[1] += int(line["stake"])
            totals[2] += int(line["returned"])
    return [
        GameTotals(game, rounds[game], tuple(FieldTotals(f, *t) for f, t in fields[game].items()))
        for game in sorted(rounds)
    ]


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def render_report(date: str, games: list[GameTotals], rtp: RtpTable) -> str:
    total = sum(g.rounds for g in games)
    lines = [f"dealerpoker report for {date} (UTC): {total} round(s)"]
    for game in games:
        share = game.hold / game.stake if game.stake else None
        lines += ["", f"{game.game}: {game.rounds} round(s), staked {game.stake}, returned {game.returned}, "
                      f"hold {game.hold} ({_percent(share)})",
                  "  field   bets  staked  returned  hold  hold %  actual return  exact RTP  difference"]
        for f in game.fields:
            exact = rtp.get(game.game, {}).get(f.field)
            actual = f.actual_return
            difference = None if exact is None or actual is None else actual - exact
            hold_share = None if actual is None else 1 - actual
            diff_text = "n/a" if difference is None else f"{100 * difference:+.2f} pp"
            lines.append(
                f"  {f.field:<6} {f.bets:>5} {f.stake:>7} {f.returned:>9} {f.hold:>5}  "
                f"{_percent(hold_share)} {_percent(actual):>13} {_percent(exact):>10} {diff_text:>11}")
    if not games:
        lines.append("no settled rounds")
    return "\n".join(lines)


def report_json(date: str, games: list[GameTotals], rtp: RtpTable) -> dict[str, Any]:
    return {
        "date": date,
        "rounds": sum(g.rounds for g in games),
        "games": [{
            "game": g.game, "rounds": g.rounds, "stake": g.stake, "returned": g.returned, "hold": g.hold,
            "fields": [{
                "field": f.field, "bets": f.bets, "stake": f.stake, "returned": f.returned, "hold": f.hold,
                "actual_return": f.actual_return, "exact_rtp": rtp.get(g.game, {}).get(f.field),
            } for f in g.fields],
        } for g in games],
    }
