"""The strategy hint: the best decision at a solo round's open decision and the exact EV of each
choice, as ``dealerpoker advise`` gives them (``analysis.advise``). Off unless the deployment turns
it on (``serve --strategy-hint``, ``$DEALERPOKER_STRATEGY_HINT=1``; ``Settings.strategy_hint``).

Only the player's own view of the round goes in (the view the server stored and sent them: their
hole cards and the board dealt so far, the bets they made): never the deck, the dealer's cards or
the board still to come. The live table asks the same (``server.live.advice``), with a seat's view in
the same shape (``tables.views.decision_view``). Each answer is kept for its situation (rules,
cards, turn bet), so asking again, or another player at the same live table, costs nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from cachetools import LRUCache

from dealerpoker.errors import DealerPokerError
from dealerpoker.games.rules import Rules


class HintOffError(DealerPokerError, ValueError):
    """The deployment does not offer the strategy hint."""

    code = "hint_off"
    status = 403


class NoDecisionError(DealerPokerError, ValueError):
    """The round has no decision open (it is settled)."""

    code = "no_decision"
    status = 409


class Hints:
    """Advice for the rounds' open decisions, each computed once (in a worker thread)."""

    KEEP = 4096  # answers kept, by situation; a round asks at most three times

    def __init__(self, cache: Any = None) -> None:
        self.cache = cache  # the analysis cache (texas-bonus pre-flop needs its starting-hand table)
        self._starting: LRUCache[str, Mapping[str, Fraction]] = LRUCache(64)  # by rules fingerprint
        self._answers: LRUCache[tuple[Any, ...], dict[str, Any]] = LRUCache(self.KEEP)

    async def advice(self, round_id: str, view: Mapping[str, Any], rules: Rules) -> dict[str, Any]:
        """``{"best", "actions": {action: {"ev", "exact"}}, "phase", ...}`` at ``view``'s decision."""
        from dealerpoker.analysis.advise import situation

        if view.get("status") != "open" or not view.get("legal_actions"):
            raise NoDecisionError(key="error.hint.no_decision")
        player, board, turn_bet = situation(view)
        # All the answer depends on: the players of one live round share it.
        key = (rules.fingerprint(), tuple(map(str, player)), tuple(map(str, board)), turn_bet)
        found = self._answers.get(key)
        if found is None:
            found = await asyncio.to_thread(self._advise, player, board, turn_bet, rules)
            self._answers[key] = found
        return {"round": round_id, **found}

    def _advise(self, player: list[Any], board: list[Any], turn_bet: bool | None,
                rules: Rules) -> dict[str, Any]:
        from dealerpoker.analysis.advise import advise

        starting = self.starting_hands(rules) if rules.game == "texas-bonus" and not board else None
        advice = advise(rules, player, board, starting_hands=starting, turn_bet=turn_bet)
        return {**advice.to_json(), "player_cards": [str(c) for c in player],
                "board": [str(c) for c in board]}

    def starting_hands(self, rules: Rules) -> Mapping[str, Fraction]:
        from dealerpoker.analysis.advise import starting_hands_of
        from dealerpoker.analysis.rtp import MemoryCache, analysis_document

        key = rules.fingerprint()
        found = self._starting.get(key)
        if found is None:
            cache = self.cache if self.cache is not None else MemoryCache()
            found = self._starting[key] = starting_hands_of(analysis_document(rules, cache, cache))
        return found
