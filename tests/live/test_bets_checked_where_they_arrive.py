"""A bet that reaches a process which does not own the table is checked there
(``intents.check_before_forwarding``), and the owner takes what that process found
(``intents.already_checked``) instead of checking it again. A refusal never leaves the process
that made it; a message the owner answers alone (not a bet, no bets, the studio's dealer) goes on
unchecked. Across real processes: ``test_live_operator_limits_cluster.py``."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from dealerpoker.errors import BetLimitError
from dealerpoker.server.live.dealer import DEALER
from dealerpoker.server.live.intents import already_checked, check_before_forwarding

FREE = {"campaign": "c_1", "reward": "r_1", "free_ante": 100, "rounds_used": 0}


class Checks:
    """A ``BetCheck`` that records what it was asked: refuses an Ante over 1,000, adds a free
    round's Ante where one is named."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, Any], str | None, bool]] = []

    async def __call__(self, player: str, bets: Mapping[str, Any], free_round: str | None,
                       jackpot: bool) -> tuple[Mapping[str, Any], Mapping[str, Any] | None]:
        self.asked.append((player, dict(bets), free_round, jackpot))
        if bets.get("ante", 0) > 1000:
            raise BetLimitError("ante: at most 1000", field="ante")
        if free_round is not None:
            return {**bets, "ante": FREE["free_ante"]}, FREE
        return bets, None


def checked(message: Any, client: str = "p_1") -> tuple[Any, Any, Checks]:
    checks = Checks()
    refusal, found = asyncio.run(check_before_forwarding(client, message, checks))
    return refusal, found, checks


def test_a_bet_is_checked_where_it_arrives_and_carries_what_was_found() -> None:
    refusal, found, checks = checked({"type": "bet", "bets": {"ante": 200, "bonus": 50}, "jackpot": True})
    assert refusal is None
    assert found == {"bets": {"ante": 200, "bonus": 50}, "free": None}
    assert checks.asked == [("p_1", {"ante": 200, "bonus": 50}, None, True)]
    refusal, found, _ = checked({"type": "bet", "bets": {"bonus": 50}, "free_round": "r_1"})
    assert refusal is None and found == {"bets": {"bonus": 50, "ante": 100}, "free": FREE}


def test_a_refused_bet_is_answered_where_it_arrives_and_never_forwarded() -> None:
    refusal, found, _ = checked({"type": "bet", "bets": {"ante": 5000}})
    assert found is None
    assert refusal["type"] == "error" and refusal["error"] == "bet_limit" and refusal["field"] == "ante"
    refusal, found, checks = checked({"type": "bet", "bets": ["ante", 100]})
    assert found is None and refusal["error"] == "bad_request" and "bets" in refusal["message"]
    refusal, found, checks = checked({"type": "bet", "bets": {"ante": 200}, "jackpot": "yes"})
    assert found is None and refusal["error"] == "bad_request" and "jackpot" in refusal["message"]
    assert checks.asked == [], "a malformed bet is refused before any check"


def test_what_the_owner_answers_alone_goes_on_unchecked() -> None:
    for message, client in (({"type": "bet", "bets": {}}, "p_1"),        # withdrawing: nothing at stake
                            ({"type": "decide", "action": "bet"}, "p_1"),
                            ({"type": "hello"}, "p_1"),
                            ("not an object", "p_1"),                     # the owner names the problem
                            ({"type": "card", "card": "As"}, DEALER)):
        refusal, found, checks = checked(message, client)
        assert (refusal, found, checks.asked) == (None, None, []), message


def test_the_owner_takes_the_checked_bets_without_asking_again() -> None:
    check = already_checked({"bets": {"ante": 100, "bonus": 50}, "free": FREE})
    assert asyncio.run(check("p_1", {"bonus": 50}, "r_1", False)) == ({"ante": 100, "bonus": 50}, FREE)
