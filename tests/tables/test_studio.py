"""A studio table's dealing as pure transitions (``dealerpoker.tables.studio``): card reports,
refusals, voids, the deal timer, misdeals, what each party sees, and the stored record.

Time is a plain number; the settlement is checked against the rules engine applied to the
reported cards (an independent replay, not the table's own bookkeeping).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealerpoker.cards import parse_card
from dealerpoker.cards.encoding import card_to_index, index_to_card
from dealerpoker.games import get_game
from dealerpoker.games.base import padded_deck
from dealerpoker.tables import studio, views
from dealerpoker.tables import table as core
from dealerpoker.tables.config import InvalidTablesError, TableConfig, parse_tables
from dealerpoker.tables.record import from_record, to_record
from dealerpoker.tables.table import LiveTableError, Phase

KEY = "a-dealer-key-long-enough"


def studio_table(game: str, more: str = "") -> TableConfig:
    return parse_tables(f'[[tables]]\nid = "st"\ngame = "{game}"\ndealing = "studio"\nbetting_seconds = 15\n'
                        f'decision_seconds = 10\npause_seconds = 3\n{more}\n[tables.studio]\n'
                        f'dealer_key = "{KEY}"\ndeal_seconds = 20')[0]


def closed(table: TableConfig, bets: dict[str, dict[str, int]]) -> core.LiveRound:
    game = get_game(table.game, table.rules)
    rnd = core.open_round(table, number=3, now=0.0)
    for player, placed in bets.items():
        rnd = core.place_bets(rnd, game, player, placed, now=1.0)
    return studio.begin_dealing(core.close_betting(rnd, now=15.0), table, set(bets), now=15.0)


def deal(rnd: core.LiveRound, table: TableConfig, cards: str, now: float) -> core.LiveRound:
    game = get_game(table.game, table.rules)
    for text in cards.split():
        rnd = studio.report_card(rnd, game, table, text, source="test", now=now)
    return rnd


def close_point(rnd: core.LiveRound, table: TableConfig, decisions: dict[str, str],
                now: float) -> core.LiveRound:
    game = get_game(table.game, table.rules)
    for player, action in decisions.items():
        rnd = core.decide(rnd, game, player, action, now=now)
    plan = core.decision_plan(rnd, game, now=now if rnd.all_decided() else rnd.deadline or now)
    return core.apply_decisions(rnd, game, table, plan, set(), now=now)


def texts(indices: Any) -> list[str]:
    return [str(index_to_card(i)) for i in indices]


def idx(text: str) -> tuple[int, ...]:
    return tuple(card_to_index(parse_card(t)) for t in text.split())


# ----- configuration --------------------------------------------------------------------------
@pytest.mark.parametrize(("more", "names"), [
    ('dealing = "camera"', "tables[0].dealing"),
    ('dealing = "studio"', "tables[0].studio: a studio table needs"),
    ('dealing = "studio"\n[tables.studio]\ndealer_key = "short"',
     "tables[0].studio.dealer_key: expected at least 16 characters, got 5"),
    ('dealing = "studio"\n[tables.studio]\ndealer_key = "' + KEY + '"\ndealer_key_env = "K"',
     "exactly one of dealer_key and dealer_key_env"),
    ('dealing = "studio"\n[tables.studio]\ndealer_key_env = "NOT_SET_ANYWHERE"',
     "tables[0].studio.dealer_key_env: the environment variable 'NOT_SET_ANYWHERE' is not set"),
    ('dealing = "studio"\n[tables.studio]\ndealer_key = "' + KEY + '"\ndeal_seconds = 0',
     "tables[0].studio.deal_seconds"),
    ('dealing = "studio"\n[tables.studio]\ndealer_key = "' + KEY + '"\nkey = 1', "tables[0].studio.key"),
    ('[tables.studio]\ndealer_key = "' + KEY + '"', "only a studio table"),
    ('video_url = "javascript:alert(1)"', "tables[0].video_url"),
])
def test_a_bad_studio_entry_is_named(more: str, names: str) -> None:
    with pytest.raises(InvalidTablesError, match=names.replace("[", r"\[").replace("]", r"\]")):
        parse_tables(f'[[tables]]\nid = "a"\ngame = "texas-bonus"\n{more}', where="t.toml")


def test_the_dealer_key_comes_from_the_environment_and_is_never_shown() -> None:
    text = ('[[tables]]\nid = "a"\ngame = "texas-bonus"\ndealing = "studio"\nvideo_url = "/video/a.webm"\n'
            '[tables.studio]\ndealer_key_env = "STUDIO_A"')
    table = parse_tables(text, environ={"STUDIO_A": KEY})[0]
    assert table.studio is not None and table.studio.accepts(KEY)
    assert not table.studio.accepts(KEY + "x") and not table.studio.accepts("")
    shown = repr(table) + repr(table.to_dict())
    assert KEY not in shown and table.to_dict()["dealing"] == "studio"
    assert table.to_dict()["video_url"] == "/video/a.webm" and table.to_dict()["deal_seconds"] == 30.0


# ----- dealing, street by street ------------------------------------------------------------
def test_a_texas_round_is_dealt_street_by_street_and_settles_on_the_reported_cards() -> None:
    table = studio_table("texas-bonus")
    game = get_game(table.game, table.rules)
    bets = {"p1": {"ante": 100, "bonus": 100}, "p2": {"ante": 200}}
    rnd = closed(table, bets)
    assert rnd.phase is Phase.DEALING and rnd.deadline == 35.0
    assert studio.expected(rnd) == {"cards": 2, "to": "player", "street": "hole", "position": 0}
    rnd = deal(rnd, table, "As Kd", now=16.0)
    assert studio.expected(rnd) == {"cards": 2, "to": "dealer", "street": "hole", "position": 2}
    assert views.public_view(rnd, table)["player_cards"] == []  # the street is not complete
    rnd = deal(rnd, table, "Qh Qc", now=17.0)
    assert rnd.phase is Phase.DECISION and rnd.point == "preflop" and rnd.deadline == 27.0
    public = views.public_view(rnd, table)
    assert (public["player_cards"], public["dealer_cards"], public["board"]) == (["As", "Kd"], [], [])
    assert views.seat_view(rnd, game, "p1")["bonus"]["status"] == "won"  # A-K offsuit, paid at once
    rnd = close_point(rnd, table, {"p1": "bet", "p2": "fold"}, now=18.0)
    assert rnd.phase is Phase.DEALING and rnd.point == "flop" and rnd.deadline == 38.0
    assert studio.expected(rnd) == {"cards": 3, "to": "board", "street": "flop", "position": 4}
    rnd = deal(rnd, table, "2c 7d 9h", now=19.0)
    assert views.public_view(rnd, table)["board"] == ["2c", "7d", "9h"]
    rnd = close_point(rnd, table, {"p1": "check"}, now=20.0)
    assert studio.expected(rnd) == {"cards": 1, "to": "board", "street": "turn", "position": 7}
    rnd = close_point(deal(rnd, table, "Js", now=21.0), table, {"p1": "bet"}, now=22.0)
    assert views.public_view(rnd, table)["dealer_cards"] == []  # not before the river
    rnd = deal(rnd, table, "3s", now=23.0)
    assert rnd.phase is Phase.SHOWDOWN
    public = views.public_view(rnd, table)
    assert (public["dealer_cards"], public["board"]) == (["Qh", "Qc"], ["2c", "7d", "9h", "Js", "3s"])
    deck = idx("As Kd Qh Qc 2c 7d 9h Js 3s")
    expected_p1, _ = game.replay(bets["p1"], deck, ["bet", "check", "bet"])
    expected_p2, _ = game.replay(bets["p2"], deck, ["fold"])
    settled = core.settlements(rnd)
    assert settled["p1"] == expected_p1.settlement and settled["p2"] == expected_p2.settlement
    assert core.returns(rnd) == {"p1": expected_p1.settlement.total_returned - 1600, "p2": 0}


def test_when_everyone_folds_no_more_cards_are_asked_for() -> None:
    table = studio_table("texas-bonus")
    rnd = deal(closed(table, {"p1": {"ante": 100}}), table, "2c 7d Qh Qc", now=16.0)
    rnd = close_point(rnd, table, {"p1": "fold"}, now=17.0)
    assert rnd.phase is Phase.SHOWDOWN and studio.expected(rnd) is None
    public = views.public_view(rnd, table)
    assert (public["board"], public["dealer_cards"]) == ([], ["Qh", "Qc"])
    assert core.settlements(rnd)["p1"].outcome == "fold"


def test_casino_deals_the_flop_with_the_hole_cards_then_turn_and_river_together() -> None:
    table = studio_table("casino-holdem")
    game = get_game(table.game, table.rules)
    rnd = closed(table, {"p1": {"ante": 100, "aa": 100}, "p2": {"ante": 100}})
    rnd = deal(rnd, table, "Ah Ad 7h 7s", now=16.0)
    assert studio.expected(rnd) == {"cards": 3, "to": "board", "street": "flop", "position": 4}
    rnd = deal(rnd, table, "As 7c 7d", now=16.0)
    assert rnd.point == "flop" and views.public_view(rnd, table)["board"] == ["As", "7c", "7d"]
    rnd = close_point(rnd, table, {"p1": "raise"}, now=17.0)  # p2 times out: fold
    assert studio.expected(rnd) == {"cards": 2, "to": "board", "street": "turn", "position": 7}
    rnd = deal(rnd, table, "Kh 2s", now=18.0)
    assert rnd.phase is Phase.SHOWDOWN
    deck = idx("Ah Ad 7h 7s As 7c 7d Kh 2s")
    assert core.settlements(rnd)["p1"] == game.replay({"ante": 100, "aa": 100}, deck, ["raise"])[0].settlement


# ----- refusals: nothing changes -----------------------------------------------------------------
@pytest.mark.parametrize(("card", "code"), [
    ("Xx", "invalid_card"), ("", "invalid_card"), (12, "invalid_card"), (None, "invalid_card"),
    ("As", "duplicate_card"), ("as", "duplicate_card"),
])
def test_a_card_that_is_not_a_card_or_already_in_the_round_is_refused(card: Any, code: str) -> None:
    table = studio_table("texas-bonus")
    game = get_game(table.game, table.rules)
    rnd = deal(closed(table, {"p1": {"ante": 100}}), table, "As", now=16.0)
    with pytest.raises(LiveTableError) as refused:
        studio.report_card(rnd, game, table, card, source="test", now=16.5)
    assert refused.value.code == code


def test_a_card_when_none_is_expected_is_refused() -> None:
    table = studio_table("texas-bonus")
    game = get_game(table.game, table.rules)
    rnd = core.open_round(table, number=1, now=0.0)
    with pytest.raises(LiveTableError, match="no card is expected") as refused:
        studio.report_card(rnd, game, table, "As", source="test", now=1.0)
    assert refused.value.code == "not_expected"
    deciding = deal(closed(table, {"p1": {"ante": 100}}), table, "As Kd Qh Qc", now=16.0)
    with pytest.raises(LiveTableError, match="no card is expected"):
        studio.report_card(deciding, game, table, "2c", source="test", now=17.0)
    late = closed(table, {"p1": {"ante": 100}})
    with pytest.raises(LiveTableError, match="too late"):
        studio.report_card(late, game, table, "2c", source="test", now=35.0)


def test_an_rng_table_has_no_dealer() -> None:
    table = parse_tables('[[tables]]\nid = "r"\ngame = "texas-bonus"')[0]
    game = get_game(table.game, table.rules)
    with pytest.raises(LiveTableError) as refused:
        studio.report_card(core.open_round(table, number=1, now=0.0), game, table, "As", source="x", now=1.0)
    assert refused.value.code == "not_studio"


# ----- void -------------------------------------------------------------------------------------------
def test_void_takes_back_the_last_card_of_the_street_being_dealt_only() -> None:
    table = studio_table("texas-bonus")
    rnd = deal(closed(table, {"p1": {"ante": 100}}), table, "As Kd Qh", now=16.0)
    rnd = studio.void_card(rnd, now=16.5)
    rnd = studio.void_card(rnd, now=16.6)  # a second void goes further back
    assert texts(rnd.deck) == ["As"] and studio.expected(rnd)["position"] == 1
    assert [(texts([r.card])[0], r.position, r.voided_at) for r in rnd.reports] == [
        ("As", 0, None), ("Kd", 1, 16.6), ("Qh", 2, 16.5)]
    rnd = deal(rnd, table, "Qh Kd Qc", now=17.0)  # a voided card may be reported again
    assert rnd.phase is Phase.DECISION and texts(rnd.deck) == ["As", "Qh", "Kd", "Qc"]
    with pytest.raises(LiveTableError) as refused:  # shown to the players: final
        studio.void_card(rnd, now=17.5)
    assert refused.value.code == "nothing_to_void"
    rnd = close_point(rnd, table, {"p1": "bet"}, now=18.0)
    with pytest.raises(LiveTableError, match="no card to void"):
        studio.void_card(rnd, now=18.5)  # the flop's first card is not in yet


# ----- misdeal -------------------------------------------------------------------------------------
def stakes(rnd: core.LiveRound) -> dict[str, int]:
    return {player: seat.total_stake for player, seat in rnd.seats.items()}


@pytest.mark.parametrize("moment", ["first card", "hole cards in", "flop being dealt", "turn decision"])
def test_a_misdeal_returns_every_stake_and_keeps_a_bonus_won_at_the_deal(moment: str) -> None:
    table = studio_table("texas-bonus")
    game = get_game(table.game, table.rules)
    rnd = deal(closed(table, {"p1": {"ante": 100, "bonus": 100}, "p2": {"ante": 300, "bonus": 100}}),
               table, "Ah Kh", now=16.0)   # A-K suited: the Bonus pays 25 to 1
    if moment != "first card":
        rnd = deal(rnd, table, "2c 2d", now=16.0)
    if moment in ("flop being dealt", "turn decision"):
        rnd = deal(close_point(rnd, table, {"p1": "bet", "p2": "fold"}, now=17.0), table, "9s", now=17.5)
    if moment == "turn decision":
        rnd = close_point(deal(rnd, table, "8s 7s", now=18.0), table, {"p1": "bet"}, now=19.0)
        rnd = deal(rnd, table, "3h", now=20.0)
        assert rnd.point == "turn"
    staked = stakes(rnd)
    cancelled = studio.misdeal(rnd, game, table, by="dealer", reason="cards dropped", now=21.0)
    assert cancelled.phase is Phase.PAUSE and cancelled.deadline == 24.0
    assert cancelled.misdeal is not None and cancelled.misdeal.by == "dealer"
    bonus_settled = moment != "first card"
    for player, seat in cancelled.seats.items():
        lines = {line.field: (line.stake, line.returned) for line in seat.result.lines}
        assert seat.result.outcome == "misdeal" and seat.result.total_stake == staked[player]
        for field, (stake, returned) in lines.items():
            if field == "bonus" and bonus_settled:
                assert returned == 2600  # won on the hole cards: its payout stands (25 to 1)
            else:
                assert returned == stake
        # The settlement's credit is what the deal did not already pay.
        assert core.returns(cancelled)[player] == seat.result.total_returned - seat.bonus_paid
        assert core.returns(cancelled)[player] == staked[player] - (100 if bonus_settled else 0)
    public = views.public_view(cancelled, table)
    assert public["misdeal"]["reason"] == "cards dropped" and public["dealer_cards"] == []
    with pytest.raises(LiveTableError):
        studio.misdeal(cancelled, game, table, by="dealer", reason="again", now=22.0)


def test_the_deal_timer_makes_a_late_street_overdue() -> None:
    table = studio_table("casino-holdem")
    rnd = deal(closed(table, {"p1": {"ante": 100}}), table, "Ah Ad", now=16.0)
    assert not studio.deal_overdue(rnd, 34.9) and studio.deal_overdue(rnd, 35.0)


# ----- what each party sees ---------------------------------------------------------------------
def test_the_dealer_sees_every_reported_card_and_what_is_next() -> None:
    table = studio_table("texas-bonus")
    rnd = closed(table, {"p1": {"ante": 100, "bonus": 100}, "p2": {"ante": 100}})
    rnd = deal(rnd, table, "As Kd Qh", now=16.0)
    rnd = studio.void_card(rnd, now=16.5)
    view = views.dealer_view(rnd, table)
    assert view["expect"] == {"cards": 2, "to": "dealer", "street": "hole", "position": 2}
    assert [(r["card"], r["to"], r["voided"]) for r in view["reports"]] == [
        ("As", "player", False), ("Kd", "player", False), ("Qh", "dealer", True)]
    assert view["stakes"] == {"ante": 200, "bonus": 100} and view["seated"] == 2
    assert view["can_void"] and view["can_misdeal"]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), game_name=st.sampled_from(["texas-bonus", "casino-holdem"]))
def test_no_player_sees_a_card_before_its_reveal(seed: int, game_name: str) -> None:
    """Random rounds (random cards, voids, decisions): at every step the players' views hold only
    the cards the current point shows, and the round replays from its record to the same views."""
    rng = random.Random(seed)
    table = studio_table(game_name)
    game = get_game(table.game, table.rules)
    rnd = closed(table, {"p1": {"ante": 100}, "p2": {"ante": 100}})
    now = 16.0
    while rnd.phase not in (Phase.SHOWDOWN, Phase.PAUSE):
        now += 0.1
        if rnd.phase is Phase.DEALING:
            if studio.can_void(rnd) and rng.random() < 0.2:
                rnd = studio.void_card(rnd, now=now)
            else:
                card = rng.choice([c for c in range(52) if c not in (rnd.deck or ())])
                rnd = studio.report_card(rnd, game, table, str(index_to_card(card)), source="t", now=now)
        else:
            decisions = {seat.player_id: rng.choice(game.legal_actions(seat.state))
                         for seat in rnd.at_point()}
            rnd = close_point(rnd, table, decisions, now=now)
        _check_nothing_early(rnd, table, game)
        restored, fairness = from_record(to_record(rnd, None), game)
        assert fairness is None
        assert views.public_view(restored, table) == views.public_view(rnd, table)
        assert views.dealer_view(restored, table) == views.dealer_view(rnd, table)
        for player in rnd.seats:
            assert views.seat_view(restored, game, player) == views.seat_view(rnd, game, player)
    deck = padded_deck(rnd.deck or ())
    for player, seat in rnd.seats.items():
        replayed, _ = game.replay(seat.bets, deck, [step.action for step in seat.steps])
        assert core.settlements(rnd)[player] == replayed.settlement


def _check_nothing_early(rnd: core.LiveRound, table: TableConfig, game: Any) -> None:
    public = views.public_view(rnd, table)
    deck = texts(rnd.deck or ())
    shown = set(public["player_cards"]) | set(public["board"]) | set(public["dealer_cards"])
    if rnd.phase is Phase.DECISION:
        visible = {"preflop": 0, "flop": 3, "turn": 4}[rnd.point or ""]
        assert public["board"] == deck[4:4 + visible] and public["dealer_cards"] == []
    if rnd.phase is Phase.DEALING:
        assert public["dealer_cards"] == [] and not shown & set(deck[rnd.street_start:])
    seats = repr([views.seat_view(rnd, game, p) for p in rnd.seats])
    for hidden in set(deck) - shown:
        assert f"'{hidden}'" not in repr(public) and f"'{hidden}'" not in seats
