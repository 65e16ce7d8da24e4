"""Verify a live table round's record (``mode`` ``"table"``, see :mod:`dealerpoker.fairness.live_record`).

The same checks as a solo record, for every seat: the digest, the commitment and the deck from
the revealed seed, the cards shown at each reveal and when, then each seat's actions replayed
and re-settled with the rules engine from the record's own rules, and each seat's ledger
transfers summed against that settlement. With every seat (scope ``"round"``) the table client
seed is recomputed from the accepted bets, and every ledger entry must belong to a seat. A seat
that carries the jurisdiction profile its player played under (records since issue 27) is
checked against it: the game, the mode (``live``, or ``studio`` at a studio table), the paytable
and what the seat staked.

>>> [f.subject for f in verify_live_record({"record_version": 1, "mode": "table"}) if not f.ok][:2]
['record', 'record_digest']
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import Any

from dealerpoker.errors import DealerPokerError
from dealerpoker.fairness import verify_studio
from dealerpoker.fairness.checks import (
    Checker,
    Finding,
    check_dealt,
    check_fairness,
    check_header,
    check_jurisdiction,
    check_player_ledger,
    load_game,
    parse_time,
    replay_seat,
)
from dealerpoker.fairness.live_record import SCOPES, TIMER_REASONS, VISIBLE, reveals_of
from dealerpoker.fairness.table import table_client_seed
from dealerpoker.games.base import CARDS_PER_ROUND, padded_deck
from dealerpoker.games.currency import house_account
from dealerpoker.games.payments import opening_stake

__all__ = ["verify_live_record"]

_REQUIRED = (
    "round_id", "game", "rules_version", "rules_fingerprint", "rules", "mode", "scope", "table",
    "table_id", "player_id", "status", "opened_at", "betting_closed_at", "settled_at", "reveals",
    "fairness", "deck", "dealt", "seats", "ledger", "record_digest",
)  # fmt: skip


def verify_live_record(
    record: Mapping[str, Any],
    *,
    server_seed: str | None = None,
    expected_commitment: str | None = None,
    client_seed: str | None = None,
    nonce: int | None = None,
) -> list[Finding]:
    """Every check of a settled live round's record; the keyword values, when given, must match it."""
    check = Checker()
    if not check_header(check, record, _REQUIRED):
        return check.findings
    seats = record["seats"]
    if not isinstance(seats, list) or not all(isinstance(s, Mapping) for s in seats):
        check.fail("seats", "must be a list of objects {player_id, bets, actions, settlement, ...}")
        return check.findings
    if not _check_identity(check, record, seats):
        return check.findings
    studio = record.get("dealing") == "studio"
    if studio:
        deck = verify_studio.check_cards(check, record)
        cancelled = verify_studio.check_misdeal(check, record)
        if deck is None or cancelled is None:
            return check.findings
    else:
        cancelled = False
        deck = check_fairness(check, record, server_seed, expected_commitment, client_seed, nonce)
        if deck is None:
            return check.findings
        _check_client_seed(check, record, seats)
    check_dealt(check, record, deck)
    if not _check_reveals(check, record, deck, cancelled=cancelled):
        return check.findings
    if studio:
        verify_studio.check_reveal_times(check, record, deck)
    _check_times(check, record, seats)
    if record["status"] != "settled":
        check.fail("status", f"record says {record['status']!r}: only settled rounds have a record")
    game = load_game(check, record)
    if game is None:
        return check.findings
    by_player = _transfers_by_player(check, record, seats)
    for seat in seats:
        _check_seat(check, record, game, deck, seat, by_player.get(str(seat.get("player_id")), []),
                    cancelled=cancelled)
    return check.findings


def _check_identity(check: Checker, record: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]) -> bool:
    table = record["table"]
    if not isinstance(table, Mapping) or not isinstance(table.get("number"), int):
        check.fail("table", 'must be an object {"id": table id, "number": round number}')
        return False
    if not isinstance(record["fairness"], Mapping) and record.get("dealing") != "studio":
        check.fail("fairness", "must be an object {algorithm, commitment, server_seed, client_seed, nonce}")
        return False
    good = check.same("table.id", record["table_id"], table.get("id"), "the round's table")
    good &= check.same("round_id", record["round_id"], f"{table.get('id')}/{table['number']}",
                       "the round id is {table}/{number}")
    if record.get("dealing") == "studio":
        if record["fairness"] is not None:
            check.fail("fairness", "a studio round has no seeds: its cards are the dealer's reports")
            return False
    else:
        good &= check.same("fairness.nonce", record["fairness"].get("nonce"), table["number"],
                           "a live round's nonce is its round number")
    if record["scope"] not in SCOPES:
        check.fail("scope", f"record says {record['scope']!r}, expected one of {', '.join(SCOPES)}")
        return False
    players = [seat.get("player_id") for seat in seats]
    if len(set(map(str, players))) != len(players):
        check.fail("seats", "a player is seated twice")
        return False
    if record["scope"] == "round" and record["player_id"] is not None:
        check.fail("player_id", f"record says {record['player_id']!r}: the whole round's record is nobody's")
        return False
    if record["scope"] == "player" and players != [record["player_id"]]:
        check.fail("seats", f"a player's part holds their own seat only: record has {players!r} "
                            f"for player {record['player_id']!r}")
        return False
    return good


def _check_client_seed(check: Checker, record: Mapping[str, Any],
                       seats: Sequence[Mapping[str, Any]]) -> None:
    recorded = record["fairness"].get("client_seed")
    if record["scope"] == "player":
        check.ok("fairness.client_seed", "fixed when betting closed as the hash of every seat's accepted "
                                         "bets: only the whole round's record (export) can recompute it")
        return
    try:
        expected = table_client_seed(record["round_id"], {str(s.get("player_id")): s.get("bets") or {}
                                                          for s in seats})
    except (DealerPokerError, AttributeError, TypeError) as error:
        check.fail("fairness.client_seed", f"cannot hash the seats' bets: {error}")
        return
    if recorded == expected:
        check.ok("fairness.client_seed", f"the hash of the {len(seats)} seat(s)' accepted bets")
    else:
        check.fail("fairness.client_seed", f"record says {recorded!r}, the seats' accepted bets hash to "
                                           f"{expected}: the bets are not the ones the deck was dealt for")


def _check_reveals(check: Checker, record: Mapping[str, Any], deck: tuple[int, ...], *,
                   cancelled: bool) -> bool:
    """The cards each reveal showed are the deck's; a round ends with the showdown (a cancelled
    studio round where it was cancelled)."""
    reveals = record["reveals"]
    if not isinstance(reveals, list) or not all(isinstance(r, Mapping) for r in reveals):
        check.fail("reveals", "must be a list of objects {event, at, cards}")
        return False
    events = [r.get("event") for r in reveals]
    unknown = [e for e in events if not isinstance(e, str) or e not in VISIBLE]
    ended = (not events or events[-1] != "showdown") if cancelled else (events and events[-1] == "showdown")
    if unknown or not ended:
        ending = "not reaching the showdown (cancelled)" if cancelled else "ending with the showdown"
        check.fail("reveals", f"events {events!r}: expected decision points ({', '.join(VISIBLE)}) {ending}")
        return False
    expected = reveals_of(deck, [(r.get("event"), r.get("at")) for r in reveals])
    if check.diff("reveals", reveals, expected) == 0:
        check.ok("reveals", f"{len(reveals)} reveal(s), each showing the cards the deck gives")
    return True


def _check_times(check: Checker, record: Mapping[str, Any], seats: Sequence[Mapping[str, Any]]) -> None:
    named = [("opened_at", record["opened_at"]), ("betting_closed_at", record["betting_closed_at"])]
    reveals = record["reveals"] if isinstance(record["reveals"], list) else []
    named += [(f"reveals[{k}].at", r.get("at")) for k, r in enumerate(reveals) if isinstance(r, Mapping)]
    named.append(("settled_at", record["settled_at"]))
    times: list[tuple[str, datetime.datetime]] = []
    for name, value in named:
        parsed = parse_time(value)
        if parsed is None:
            check.fail(name, f"{value!r} is not an ISO-8601 time with a time zone")
            return
        if times and parsed < times[-1][1]:
            check.fail(name, f"{value} is before {times[-1][0]}")
            return
        times.append((name, parsed))
    # A decision at a point falls between that point's reveal and the next reveal (the timer's
    # default at the close, which is when the next cards are shown).
    window = {}
    for k, r in enumerate(reveals):
        window[str(r.get("event"))] = (times[2 + k][1], times[3 + k][1])
    bad = 0
    for seat in seats:
        for k, action in enumerate(seat.get("actions") or []):
            subject = f"seats[{seat.get('player_id')}].actions[{k}].at"
            at = parse_time(action.get("at") if isinstance(action, Mapping) else None)
            span = window.get(str(action.get("point"))) if isinstance(action, Mapping) else None
            if at is None or span is None:
                check.fail(subject, "not an ISO-8601 time at one of the round's decision points")
                bad += 1
            elif not span[0] <= at <= span[1]:
                check.fail(subject, f"{action['at']} is outside the {action['point']} decision "
                                    f"({span[0].isoformat()} .. {span[1].isoformat()})")
                bad += 1
    if not bad:
        check.ok("timestamps", "opened, betting closed, each reveal, each action and settlement are in order")


def _transfers_by_player(check: Checker, record: Mapping[str, Any],
                         seats: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """Each seat's transfers (both entries); entries moving nobody's money are named."""
    ledger = record["ledger"]
    if not isinstance(ledger, list) or not all(isinstance(e, Mapping) for e in ledger):
        check.fail("ledger", "must be a list of entries {txid, account, amount, memo, at}")
        return {}
    seated = {str(seat.get("player_id")) for seat in seats}
    # The house account of the round's currency (records made before currencies: "house").
    currency = record.get("currency")
    house = house_account(currency) if isinstance(currency, str) else "house"
    by_txid: dict[str, list[Mapping[str, Any]]] = {}
    for entry in ledger:
        by_txid.setdefault(str(entry.get("txid")), []).append(entry)
    by_player: dict[str, list[Mapping[str, Any]]] = {}
    first, last = parse_time(record["betting_closed_at"]), parse_time(record["settled_at"])
    for txid, entries in by_txid.items():
        accounts = sorted(str(e.get("account")) for e in entries)
        owners = set(accounts) & seated
        houses = [account for account in accounts if account not in owners]
        if len(owners) != 1 or len(houses) != 1 or houses[0] != house:
            check.fail(f"ledger[{txid}]", f"moves money between {accounts}: each transfer of a live round "
                                          f"is between one seated player and the {house!r} account")
            continue
        for entry in entries:
            at = parse_time(entry.get("at"))
            if at is None or first is None or last is None or not first <= at <= last:
                check.fail(f"ledger[{txid}].at", f"{entry.get('at')!r} is not a time between betting "
                                                 "closed and the settlement")
        by_player.setdefault(owners.pop(), []).extend(entries)
    return by_player


def _check_seat(check: Checker, record: Mapping[str, Any], game: Any, deck: tuple[int, ...],
                seat: Mapping[str, Any], transfers: list[Mapping[str, Any]], *, cancelled: bool) -> None:
    player = seat.get("player_id")
    prefix = f"seats[{player}]."
    actions = seat.get("actions")
    for k, action in enumerate(actions if isinstance(actions, list) else []):
        if not isinstance(action, Mapping):
            continue
        reason, source = action.get("reason"), action.get("source")
        stake = action.get("stake")
        txid = f"{record['round_id']}:{player}:{action.get('point')}" if stake else None
        if action.get("txid") != txid:
            check.fail(f"{prefix}actions[{k}].txid", f"record says {action.get('txid')!r}, expected {txid!r} "
                                                     "(the decision's ledger transfer when it staked)")
        if (source == "player" and reason is not None) or (source == "timer" and reason not in TIMER_REASONS):
            check.fail(f"{prefix}actions[{k}].reason",
                       f"record says {reason!r} for source {source!r}: the timer's reason is one of "
                       f"{', '.join(TIMER_REASONS)}, a player's own choice has none")
    check_jurisdiction(check, seat.get("jurisdiction"), subject=f"{prefix}jurisdiction",
                       game=str(record["game"]),
                       mode="studio" if record.get("dealing") == "studio" else "live",
                       rules_fingerprint=str(record["rules_fingerprint"]), bets=seat.get("bets"),
                       actions=actions, currency=str(record.get("currency", "")))
    # A studio deck holds the cards dealt (the engine's undealt positions get a filler never shown).
    replayed = replay_seat(check, game, padded_deck(deck), seat.get("bets"), actions, seat.get("settlement"),
                           prefix=prefix, cancelled=cancelled, dealt=bool(record["reveals"]))
    if replayed is None or replayed.state.settlement is None:
        return
    settlement = replayed.state.settlement
    if not cancelled and len(deck) < CARDS_PER_ROUND and settlement.outcome != "fold":
        check.fail(f"{prefix}settlement", f"a hand reached the showdown with {len(deck)} cards dealt")
        return
    # A free round (``promo``): the operator paid the ante, the cap on winnings kept ``forfeited``
    # back; both are checked by ``check_player_ledger``.
    promo = seat.get("promo")
    free, forfeited = _promo_amounts(promo)
    check.same(f"{prefix}total_stake", seat.get("total_stake"), settlement.total_stake - free,
               "the stored total stake is the re-settled one" + (" less the free ante" if free else ""))
    check.same(f"{prefix}total_returned", seat.get("total_returned"), settlement.total_returned - forfeited,
               "the stored total return is the re-settled one" + (" less the forfeit" if forfeited else ""))
    if not check_player_ledger(check, transfers, player, actions or [], replayed, prefix=prefix, promo=promo):
        return
    opening = opening_stake({str(k): int(v) for k, v in (seat.get("bets") or {}).items()}) - free
    txid = seat.get("bets_txid")
    mine = [e.get("amount") for e in transfers if e.get("txid") == txid and e.get("account") == player]
    if opening and mine != [-opening]:
        check.fail(f"{prefix}bets_txid", f"ledger transfer {txid!r} debits the player {mine}, "
                                         f"the opening bets are {opening}")


def _promo_amounts(promo: Any) -> tuple[int, int]:
    """A free round's free ante and forfeit (0, 0 when none or malformed: ``check_player_ledger``
    names a malformed one)."""
    if not isinstance(promo, Mapping):
        return 0, 0
    free, forfeited = promo.get("free_ante"), promo.get("forfeited")
    if not all(isinstance(a, int) and not isinstance(a, bool) and a >= 0 for a in (free, forfeited)):
        return 0, 0
    return int(free), int(forfeited)  # type: ignore[arg-type]  # checked just above
