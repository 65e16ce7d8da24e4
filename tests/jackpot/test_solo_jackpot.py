"""The progressive jackpot bet at a solo table: its stake, its contribution to the one pool, its
fixed awards and the pool itself, in the round's record, the ledger and the pool's events, on
SQLite and PostgreSQL. The cards are dealt (tests/support/dealing.py), never waited for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.jackpot.support import first_five_is, jackpot_file, pool_audit, pool_events, rules_of
from tests.server.conftest import Player, make_client
from tests.support.dealing import Dealer, Wanted, find_client_seed

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.fairness.verify import verify_record
from dealerpoker.games.jackpot import first_five, first_five_result, load_jackpot

SEED = 100_000  # tests/jackpot/support.py FOUR_WINS: a four of a kind wins the pool


def jackpot_round(player: Player, game: str, **bets: int) -> dict[str, Any]:
    response = player.post("/api/rounds", {"game": game, "bets": bets, "jackpot": True})
    assert response.status_code == 200, response.text
    view: dict[str, Any] = response.json()
    return view


def ledger_of(player: Player, round_id: str) -> dict[str, int]:
    """The round's jackpot transfers of its signed record, which ``verify`` accepts (the bet on
    the deck's first five cards, as the ledger moved it), and refuses with its award changed."""
    record = player.get(f"/api/rounds/{round_id}/record").json()
    findings = verify_record(record)
    assert [str(f) for f in findings if not f.ok] == [] and any(f.subject == "jackpot" for f in findings)
    forged = {**record, "jackpot": {**record["jackpot"], "bet": {**record["jackpot"]["bet"], "award": 1}}}
    assert [f.subject for f in verify_record(forged) if not f.ok and f.subject.startswith("jackpot")] == \
        ["jackpot.ledger"]
    return {entry["memo"]: entry["amount"] for entry in record["jackpot"]["ledger"]
            if entry["account"] == player.id}


def test_a_four_of_a_kind_wins_the_pool_even_after_a_fold_and_the_pool_starts_again(
        tmp_path: Path, served_database: str) -> None:
    database = served_database
    path = jackpot_file(tmp_path)
    rules, dealer = rules_of(path), Dealer()
    with make_client(database, rng=dealer, jackpot_file=path) as client:
        player = Player(client)
        assert client.get("/api/jackpot").json()["pool"] == SEED
        dealer.solo(client, player.token, where=first_five_is(rules, HandCategory.HIGH_CARD).where)
        lost = jackpot_round(player, "texas-bonus", ante=100)
        assert lost["jackpot"]["status"] == "open" and lost["board"] == []  # decided on the flop
        lost = player.act(lost["id"], "bet")
        assert lost["jackpot"]["status"] == "lost" and lost["jackpot"]["cards"] == \
            lost["player_cards"] + lost["board"][:3]
        while lost["status"] == "open":
            lost = player.act(lost["id"], "check")
        assert client.get("/api/jackpot").json()["pool"] == SEED + 20  # 1/5 of the stake

        dealer.solo(client, player.token, where=first_five_is(rules, HandCategory.FOUR_OF_A_KIND).where)
        won = jackpot_round(player, "texas-bonus", ante=100)
        before = won["balance"]
        won = player.act(won["id"], "fold")  # the player's first five cards win whatever they decide
        bet = won["jackpot"]
        assert (bet["status"], bet["hand"], bet["pool_award"], bet["award"]) == \
            ("won", "four-of-a-kind", True, SEED + 40)
        assert won["balance"] == before + SEED + 40
        assert (won["total_stake"], won["total_returned"]) == (200, SEED + 40)
        assert client.get("/api/jackpot").json()["pool"] == SEED  # seeded again
        assert ledger_of(player, won["id"]) == {"jackpot": -100, "jackpot-award": SEED + 40}
    audit = pool_audit(database)
    assert audit.ok and (audit.amount, audit.seeds, audit.contributions, audit.awards) == \
        (SEED, 2 * SEED, 40, SEED + 40)
    kinds = [(event["kind"], event["amount"], event["pool_after"]) for event in pool_events(database)]
    assert kinds[:4] == [("seed", SEED, SEED), ("award", SEED + 40, 0), ("contribution", 20, SEED + 40),
                         ("contribution", 20, SEED + 20)]


def test_casino_holdem_pays_a_fixed_award_at_the_deal_in_the_players_currency(tmp_path: Path) -> None:
    path = jackpot_file(tmp_path)
    rules, dealer = rules_of(path), Dealer()
    with make_client("sqlite://", rng=dealer, jackpot_file=path) as client:
        yen = player_in(client, "JPY")
        dealer.solo(client, yen.token, where=first_five_is(rules, HandCategory.FULL_HOUSE).where)
        view = jackpot_round(yen, "casino-holdem", ante=100)
        # 1.00 EUR at 160 yen costs 160 yen; a full house's 50.00 EUR pays 8,000 yen, at once.
        assert view["jackpot"] | {"cards": None} == {
            "stake": 160, "currency": "JPY", "status": "won", "pool_currency": "EUR", "cards": None,
            "hand": "full-house", "award": 8000, "pool_award": False}
        assert view["steps"][0]["jackpot_stake"] == 160 and view["steps"][0]["jackpot_returned"] == 8000
        view = yen.act(view["id"], "fold")
        assert ledger_of(yen, view["id"]) == {"jackpot": -160, "jackpot-award": 8000}
        assert client.get("/api/jackpot").json()["pool"] == SEED + 20  # a fixed award leaves the pool
        gbp = player_in(client, "GBP")  # the jackpot file has no rate for GBP: refused, nothing taken
        balance = gbp.get("/api/balance").json()
        answer = gbp.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}, "jackpot": True})
        assert answer.status_code == 422 and answer.json()["error"] == "jackpot_not_offered"
        assert "not offered in GBP" in answer.json()["message"]
        assert gbp.get("/api/balance").json() == balance


def player_in(client: Any, currency: str) -> Player:
    """A demo player of ``currency``."""
    player = Player.__new__(Player)
    body = client.post("/api/session", json={"currency": currency}).json()
    player.client, player.id, player.token = client, body["player_id"], body["token"]
    player.headers = {"Authorization": f"Bearer {player.token}"}
    return player


BROADWAY = frozenset(card for card in range(52) if card // 4 >= 8)  # T, J, Q, K, A of each suit


def test_a_royal_flush_wins_the_shipped_jackpots_pool() -> None:
    """The shipped jackpot (royal flush for the pool), dealt: the five positions of the first five
    cards are drawn from T-A first, which prunes most shuffles after one card."""
    rules, dealer = load_jackpot(), Dealer()
    with make_client("sqlite://", rng=dealer) as client:
        player = Player(client)
        fairness = player.get("/api/fairness").json()
        wish = Wanted((BROADWAY, BROADWAY, None, None, BROADWAY, BROADWAY, BROADWAY, None, None),
                      where=lambda deck: first_five_result(rules, first_five(deck)).wins_pool)
        deal = find_client_seed(dealer.server_seed(fairness["next_commitment"]), fairness["next_nonce"], wish)
        assert player.client.request("PUT", "/api/fairness/client-seed", headers=player.headers,
                                     json={"client_seed": deal.client_seed}).status_code == 200
        pool = client.get("/api/jackpot").json()["pool"]
        view = jackpot_round(player, "texas-bonus", ante=100)
        view = player.act(view["id"], "bet")
        assert (view["jackpot"]["hand"], view["jackpot"]["award"]) == ("royal-flush", pool + 20)
        assert client.get("/api/jackpot").json()["pool"] == rules.seed
