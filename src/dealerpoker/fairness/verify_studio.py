"""The checks of a studio round's record (``"dealing": "studio"``, see ``live_record``).

A studio round has no seeds to recompute: its cards are those the dealer's card reader (or the
dealer console) reported. What can be checked is that the reports are consistent with each
other and with everything else in the record:

- every report is a card, at the dealing position the reports before it left (a void takes back
  the last card not voided, so positions repeat after a void), sent to the place that position
  deals to; no card is in the round twice; the cards not voided, in order, are the ``deck``;
- every report and void falls between betting closed and the settlement, and each street's
  cards were all reported (and not voided) before the reveal that showed it;
- a misdeal is ``{"at", "by": "dealer" | "timer", "reason"}``, and then every seat's settlement
  is the cancellation's (``games.payments.cancellation``: every stake returned, a Bonus won on
  the hole cards at its payout); without one, a hand that reached the showdown had all nine cards.

Each seat's actions are then replayed, re-settled (a cancelled round: the cancellation of the
state its actions reached) and checked against the ledger as at an RNG table (``verify_live``),
on the reported cards.

>>> from dealerpoker.fairness.checks import Checker
>>> check = Checker()
>>> cards = [{"card": "As", "position": 0, "to": "player", "at": "2026-11-29T12:00:01+00:00",
...           "source": "reader", "voided_at": None},
...          {"card": "Kd", "position": 1, "to": "player", "at": "2026-11-29T12:00:02+00:00",
...           "source": "reader", "voided_at": "2026-11-29T12:00:03+00:00"},
...          {"card": "Kh", "position": 1, "to": "player", "at": "2026-11-29T12:00:04+00:00",
...           "source": "reader", "voided_at": None}]
>>> record = {"cards": cards, "deck": [51, 46], "betting_closed_at": "2026-11-29T12:00:00+00:00",
...           "settled_at": "2026-11-29T12:01:00+00:00"}
>>> check_cards(check, record), [f.ok for f in check.findings]
((51, 46), [True])
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from dealerpoker.cards import parse_card
from dealerpoker.cards.encoding import card_to_index
from dealerpoker.errors import DealerPokerError
from dealerpoker.fairness.checks import Checker, parse_time
from dealerpoker.fairness.live_record import CARD_SOURCE, VISIBLE
from dealerpoker.games.base import place_of

__all__ = ["MISDEAL_BY", "check_cards", "check_misdeal", "check_reveal_times"]

MISDEAL_BY = ("dealer", "timer")


def check_cards(check: Checker, record: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The round's deck from its card reports (None, with findings, when they do not add up)."""
    cards = record.get("cards")
    if not isinstance(cards, list) or not all(isinstance(c, Mapping) for c in cards):
        check.fail("cards", "a studio record lists its card reports: [{card, position, to, at, source, "
                            "voided_at}]")
        return None
    first, last = parse_time(record.get("betting_closed_at")), parse_time(record.get("settled_at"))
    stack: list[int] = []      # reports (by number) not voided, in dealing order
    bad = 0
    for k, report in enumerate(cards):
        subject = f"cards[{k}]"
        try:
            index = card_to_index(parse_card(report.get("card")))
        except (DealerPokerError, TypeError, ValueError, AttributeError):
            check.fail(f"{subject}.card", f"{report.get('card')!r} is not a card")
            return None
        position = report.get("position")
        if isinstance(position, bool) or not isinstance(position, int) or not 0 <= position <= len(stack):
            check.fail(f"{subject}.position", f"record says {position!r}: expected a dealing position "
                                              f"0..{len(stack)} (after the reports before it)")
            return None
        while len(stack) > position and _voided(cards[stack[-1]]):
            stack.pop()  # taken back before this report: the void came in between
        if position != len(stack):
            check.fail(f"{subject}.position", f"record says {position!r}: after the reports before it the "
                                              f"next card is dealt at position {len(stack)}")
            return None
        if report.get("to") != place_of(position):
            check.fail(f"{subject}.to", f"record says {report.get('to')!r}, position {position} deals to "
                                        f"the {place_of(position)}")
            bad += 1
        if any(_index(cards[j]) == index for j in stack):
            check.fail(f"{subject}.card", f"{report.get('card')} is already in the round")
            return None
        at, voided = parse_time(report.get("at")), report.get("voided_at")
        if at is None or first is None or last is None or not first <= at <= last:
            check.fail(f"{subject}.at", f"{report.get('at')!r} is not a time between betting closed and "
                                        "the settlement")
            bad += 1
        voided_at = parse_time(voided) if voided is not None else None
        if voided is not None and (voided_at is None or at is None or last is None
                                   or not at <= voided_at <= last):
            check.fail(f"{subject}.voided_at",
                       f"{voided!r} is not a time between the report and the settlement")
            bad += 1
        if not isinstance(report.get("source"), str) or not CARD_SOURCE.match(report["source"]):
            check.fail(f"{subject}.source", f"record says {report.get('source')!r}: what reported the card "
                                            "is 1-24 of a-z 0-9 - (reader, console, shoe...)")
            bad += 1
        stack.append(k)
    while stack and _voided(cards[stack[-1]]):
        stack.pop()  # voided after the last report
    if any(_voided(cards[k]) for k in stack):
        check.fail("cards", "a voided card is still dealt: a void takes back the last card only")
        return None
    deck = tuple(_index(cards[k]) for k in stack)
    if record.get("deck") != list(deck):
        check.fail("deck", f"record says {record.get('deck')!r}, the card reports deal {list(deck)}")
        return None
    if not bad:
        voids = sum(1 for c in cards if _voided(c))
        check.ok("cards", f"{len(cards)} card report(s), {voids} voided: they deal the recorded deck "
                          "(cards dealt by the studio: no seeds to check)")
    return deck


def _voided(report: Mapping[str, Any]) -> bool:
    return report.get("voided_at") is not None


def _index(report: Mapping[str, Any]) -> int:
    return card_to_index(parse_card(report["card"]))


def check_reveal_times(check: Checker, record: Mapping[str, Any], deck: Sequence[int]) -> None:
    """A street is shown once all its cards are in: every card dealt up to what a reveal shows
    (the dealer's two, face down, included) was reported, and kept, before that reveal."""
    cards = record["cards"]
    kept = {r["position"]: parse_time(r.get("at")) for r in cards if not _voided(r)}
    reveals: list[Any] = record["reveals"] if isinstance(record.get("reveals"), list) else []
    for k, reveal in enumerate(reveals):
        at = parse_time(reveal.get("at"))
        board = VISIBLE.get(str(reveal.get("event")), (0, 0, 0))[1]
        late = [p for p in range(min(len(deck), 4 + board)) if not _before(kept.get(p), at)]
        if late:
            check.fail(f"reveals[{k}].at", f"comes before the card(s) at position(s) {late} were reported")
            return
    check.ok("reveals.at", "every card shown was reported before it was shown")


def _before(first: datetime.datetime | None, second: datetime.datetime | None) -> bool:
    return first is not None and second is not None and first <= second


def check_misdeal(check: Checker, record: Mapping[str, Any]) -> bool | None:
    """Whether the round was cancelled (None, with a finding, when the record's misdeal is malformed)."""
    misdeal = record.get("misdeal")
    if misdeal is None:
        return False
    at = parse_time(misdeal.get("at")) if isinstance(misdeal, Mapping) else None
    last = parse_time(record.get("settled_at"))
    if not isinstance(misdeal, Mapping) or misdeal.get("by") not in MISDEAL_BY \
            or not isinstance(misdeal.get("reason"), str) or at is None or last is None or at > last:
        check.fail("misdeal", f"record says {misdeal!r}: expected {{at, by: dealer | timer, reason}}, "
                              "at or before the settlement")
        return None
    check.ok("misdeal", f"cancelled by the {misdeal['by']}: {misdeal['reason']}")
    return True
