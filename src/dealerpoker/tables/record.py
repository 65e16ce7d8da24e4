"""A live round as stored: JSON-able, and restored by replaying the engine (pure).

The engine's state is never stored: it is a function of (bets, deck, actions), so a round is
restored by starting each seat on the stored deck and applying its stored steps again.
Decisions still pending at a decision point are not part of the record: after a restart the
point's timer starts again and players decide again (nothing of it was debited yet).

For the audit record (``dealerpoker.server.live.audit``) it also keeps the rules fingerprint,
the round's times (opened, betting closed, each reveal, settled), each step's time and, once
settled, each seat's itemised settlement as the engine computed it then.

A studio round (``"dealing": "studio"``) has no seeds (``"fairness": null``); it keeps every card
report (voided ones too), the street being dealt and, when cancelled, the misdeal. Its seats'
engine states exist once the first street (the hole cards) was shown.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from dealerpoker.games.payments import cancellation
from dealerpoker.identity import ByIdentity
from dealerpoker.tables.dealing import CardReport, Misdeal
from dealerpoker.tables.table import (
    LiveGame,
    LiveRound,
    Phase,
    Seat,
    SharedStates,
    Step,
    rebuilt,
    seat_credit,
)


@dataclass(frozen=True, slots=True)
class Fairness:
    """The round's seeds: the commitment is public from the start, the seed after the round."""

    server_seed: str
    commitment: str
    algorithm: str
    client_seed: str | None = None
    nonce: int | None = None

    def public(self, *, reveal_seed: bool) -> dict[str, Any]:
        view: dict[str, Any] = {"commitment": self.commitment, "algorithm": self.algorithm,
                                "client_seed": self.client_seed, "nonce": self.nonce}
        if reveal_seed:
            view["server_seed"] = self.server_seed
        return view


def _step_record(step: Step) -> dict[str, Any]:
    return {**step.to_dict(), "at": step.at}


Settled = ByIdentity[Any, tuple[int, dict[str, Any]]]
"""A settlement's total returned and its itemised lines (empty before the pause), made once for
the seats that played alike (they share one: ``table.SharedStates``)."""


def _seat_record(seat: Seat, phase: Phase, settled: Settled) -> dict[str, Any]:
    record: dict[str, Any] = {"bets": dict(seat.bets), "steps": [_step_record(s) for s in seat.steps]}
    if seat.free is not None:  # a free round: its promo (the ante the operator paid, the cap left)
        record["promo"] = dict(seat.free)
    if seat.jackpot is not None:  # the jackpot side bet: its entry (settled with the round)
        record["jackpot"] = dict(seat.jackpot)
    settlement = seat.result if phase in (Phase.SHOWDOWN, Phase.PAUSE) else None
    if settlement is not None:  # every line's return, the Bonus paid at the deal included
        returned, lines = settled(settlement)
        record["returned"] = returned
        if seat.free is not None:  # what was credited: a free round's winnings capped
            credited, forfeited = seat_credit(seat)
            record["returned"] = seat.bonus_paid + credited
            record["promo"]["forfeited"] = forfeited
        if phase is Phase.PAUSE:  # the itemised lines, stored by the settlement's commit (shared: read only)
            record["settlement"] = lines
    return record


def to_record(rnd: LiveRound, fairness: Fairness | None) -> dict[str, Any]:
    """The round as stored; ``fairness`` is None at a studio table (no seeds: the cards are reported)."""
    settled: Settled = ByIdentity(lambda settlement: (
        int(settlement.total_returned), settlement.to_dict() if rnd.phase is Phase.PAUSE else {}))
    record = {
        "table": rnd.table_id,
        "number": rnd.number,
        "phase": str(rnd.phase),
        "point": rnd.point,
        "deadline": rnd.deadline,
        "deck": list(rnd.deck) if rnd.deck is not None else None,
        "rules_fingerprint": rnd.rules_fingerprint,
        "times": [[event, at] for event, at in rnd.times],
        "seats": {player: _seat_record(seat, rnd.phase, settled) for player, seat in rnd.seats.items()},
        "fairness": None if fairness is None else {
            "server_seed": fairness.server_seed, "commitment": fairness.commitment,
            "algorithm": fairness.algorithm, "client_seed": fairness.client_seed, "nonce": fairness.nonce},
        "shown": list(rnd.shown),
    }
    if fairness is None:
        record.update(dealing="studio", reports=[report.to_dict() for report in rnd.reports],
                      street_start=rnd.street_start,
                      misdeal=None if rnd.misdeal is None else rnd.misdeal.to_dict())
    return record


def _shown(record: dict[str, Any], phase: Phase, deck: tuple[int, ...] | None) -> tuple[int, int, int]:
    """The cards shown so far, as stored (records from before it was stored: from the phase)."""
    if "shown" in record:
        player, board, dealer = (int(n) for n in record["shown"])
        return player, board, dealer
    if deck is None:
        return 0, 0, 0
    if phase is Phase.DECISION:
        return 2, {"preflop": 0, "flop": 3, "turn": 4}[record["point"]], 0
    return (2, 5, 2) if phase in (Phase.SHOWDOWN, Phase.PAUSE) else (2, 0, 0)


def from_record(record: dict[str, Any], game: LiveGame) -> tuple[LiveRound, Fairness | None]:
    deck = tuple(record["deck"]) if record["deck"] is not None else None
    phase, point = Phase(record["phase"]), record["point"]
    shown = _shown(record, phase, deck)
    studio = record.get("dealing") == "studio"
    misdeal = Misdeal.from_dict(record["misdeal"]) if studio and record.get("misdeal") else None
    # A studio round's engines start when the hole cards are shown, not with the first card.
    dealt = deck is not None and (not studio or shown[0] > 0)
    seats: dict[str, Seat] = {}
    states = SharedStates(game, deck) if dealt and deck is not None else None
    for player, data in record["seats"].items():
        steps = tuple(Step(s["point"], s["action"], s["source"], int(s["stake"]), s.get("at"))
                      for s in data["steps"])
        bets = {k: int(v) for k, v in data["bets"].items()}
        seat = Seat(player, bets, steps=steps, free=data.get("promo"), jackpot=data.get("jackpot"))
        if states is not None:
            seat = rebuilt(seat, states)
        if misdeal is not None:
            seat = replace(seat, cancelled=cancellation(game, seat.bets, seat.state))
        seats[player] = seat
    waiting = sum(1 for s in seats.values() if s.state is not None and s.state.phase == point)
    rnd = LiveRound(record["table"], int(record["number"]), phase, record["deadline"], seats, point, deck,
                    undecided=waiting if phase is Phase.DECISION else 0,
                    rules_fingerprint=record.get("rules_fingerprint"),
                    times=tuple((str(e), float(t)) for e, t in record.get("times", [])), shown=shown,
                    reports=tuple(CardReport.from_dict(r) for r in record.get("reports", [])),
                    street_start=int(record.get("street_start", 0)), misdeal=misdeal)
    f = record["fairness"]
    if f is None:
        return rnd, None
    return rnd, Fairness(f["server_seed"], f["commitment"], f["algorithm"], f["client_seed"], f["nonce"])
