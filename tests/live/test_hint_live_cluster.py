"""The live strategy hint with two `dealerpoker serve --strategy-hint` processes on one PostgreSQL
database and one Redis: a player connected to either process, asking either process, gets the
advice for their own seat (the process that does not own the table asks the owner for the seat's
view over Redis), and it is what ``advise`` answers for the cards shown."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.live.cluster_support import CLUSTER_MARKS, two_processes
from tests.live.conftest import FAST_TABLES, WAIT, LivePlayer, bet_together

from dealerpoker.analysis.advise import advise
from dealerpoker.cards import parse_cards
from dealerpoker.games.rules import load_rules

pytestmark = CLUSTER_MARKS


def test_either_process_advises_each_seat(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEALERPOKER_STRATEGY_HINT", "1")
    with two_processes(tmp_path, FAST_TABLES.format(betting=3, decision=30, pause=1)) as cluster:
        first, second, players = cluster.first, cluster.second, cluster.clients
        on_first, on_second = LivePlayer(first.base, "casino-fast"), LivePlayer(second.base, "casino-fast")
        players += [on_first, on_second]
        process = {on_first.next()["process"]: first, on_second.next()["process"]: second}
        bet_together(players, {"ante": 100})
        seen = [p.until(lambda m: m["type"] == "table" and m.get("point") == "flop") for p in players]
        shown = seen[0]
        assert seen[1]["board"] == shown["board"] and seen[1]["player_cards"] == shown["player_cards"]
        expected = advise(load_rules("casino-holdem"), parse_cards(" ".join(shown["player_cards"])),
                          parse_cards(" ".join(shown["board"]))).to_json()
        owner = process[cluster.lease_owner("casino-fast")]
        for player in players:
            for server in (first, second):  # the owner answers from its runner, the other asks it
                answer = httpx.get(f"{server.base}/api/tables/casino-fast/advice", headers=player.headers,
                                   timeout=WAIT)
                assert answer.status_code == 200, (server is owner, answer.text)
                got = answer.json()
                assert {k: got[k] for k in ("game", "phase", "best", "actions")} == \
                    {k: expected[k] for k in ("game", "phase", "best", "actions")}
                assert got["round"] == shown["round"] and got["board"] == shown["board"]
        for player in players:
            assert player.reply({"type": "decide", "action": "fold"})["type"] == "you"
        after = httpx.get(f"{second.base}/api/tables/casino-fast/advice", headers=on_first.headers,
                          timeout=WAIT)
        assert after.status_code == 409 and after.json()["error"] == "no_decision"
