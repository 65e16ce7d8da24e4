"""The back office's jackpot page: the pool, its audit against its events, the bet's exact return
at the pool now (the analysis' own figures, not copied) and the pool's history; staff without
``reports.view`` are refused, and a server without a jackpot says so."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from tests.backoffice.support import StaffMember
from tests.jackpot.support import first_five_is, jackpot_file, rules_of
from tests.server.conftest import Player, make_client
from tests.support.dealing import Dealer

from dealerpoker.analysis.jackpot import jackpot_figures
from dealerpoker.evaluator.categories import HandCategory


@pytest.mark.slow
def test_the_page_shows_the_pool_its_audit_its_return_and_its_history(tmp_path: Path) -> None:
    path = jackpot_file(tmp_path)
    rules, dealer = rules_of(path), Dealer()
    with make_client("sqlite://", rng=dealer, jackpot_file=path) as client:
        player = Player(client)
        dealer.solo(client, player.token, where=first_five_is(rules, HandCategory.FLUSH).where)
        view = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100},
                                           "jackpot": True}).json()
        auditor = StaffMember(client, "auditor", "auditor")
        page = auditor.get("/admin/api/jackpot").json()
        figures = jackpot_figures(rules)
        assert page["pool"] == rules.seed + 20 and page["currency"] == "EUR"
        assert page["audit"] == {"seeds": rules.seed, "contributions": 20, "awards": 0, "ok": True}
        assert Fraction(page["return"]["at_pool"]["exact"]) == figures.return_at(rules.seed + 20)
        assert Fraction(page["return"]["break_even_pool"]["exact"]) == figures.break_even_pool
        award, contribution, seed = page["events"]
        assert (award["kind"], award["round_id"], award["category"], award["player_amount"],
                award["amount"]) == ("award", view["id"], "flush", 3000, 0)
        assert (contribution["kind"], contribution["amount"], contribution["pool_after"]) == \
            ("contribution", 20, rules.seed + 20)
        assert (seed["kind"], seed["round_id"], seed["amount"]) == ("seed", "seed:initial", rules.seed)
        only = auditor.get("/admin/api/jackpot", kind="contribution").json()["events"]
        assert [event["kind"] for event in only] == ["contribution"]
        assert auditor.get("/admin/api/jackpot", kind="bonus").status_code == 422
        support = StaffMember(client, "helpdesk", "support")
        assert support.get("/admin/api/jackpot").status_code == 403


def test_a_server_without_a_jackpot_says_so() -> None:
    with make_client("sqlite://", jackpot=False) as client:
        player = Player(client)
        answer = player.post("/api/rounds", {"game": "texas-bonus", "bets": {"ante": 100}, "jackpot": True})
        assert answer.status_code == 422 and answer.json()["error"] == "jackpot_not_offered"
        assert client.get("/api/jackpot").json()["error"] == "jackpot_not_offered"
        assert StaffMember(client, "auditor", "auditor").get("/admin/api/jackpot").status_code == 422
