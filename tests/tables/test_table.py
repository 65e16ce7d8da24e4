"""The live round's pure state machine, with time as a plain number (no real timers)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.errors import BetLimitError, IllegalActionError
from dealerpoker.games import get_game
from dealerpoker.tables import table as core
from dealerpoker.tables import views
from dealerpoker.tables.config import InvalidTablesError, TableConfig, load_tables, parse_tables
from dealerpoker.tables.table import LiveTableError, Phase

DECK = tuple(range(51, -1, -1))  # As Ah Ad Ac Ks Kh ...: a fixed, known deck


def texas() -> TableConfig:
    return parse_tables('[[tables]]\nid = "tx"\ngame = "texas-bonus"\nbetting_seconds = 15\n'
                        'decision_seconds = 10\npause_seconds = 3')[0]


def casino() -> TableConfig:
    return parse_tables('[[tables]]\nid = "ch"\ngame = "casino-holdem"\nbetting_seconds = 15\n'
                        'decision_seconds = 10\npause_seconds = 3')[0]


def dealt(table: TableConfig, bets: dict[str, dict[str, int]], now: float = 20.0) -> core.LiveRound:
    game = get_game(table.game, table.rules)
    rnd = core.open_round(table, number=7, now=0.0)
    for player, b in bets.items():
        rnd = core.place_bets(rnd, game, player, b, now=1.0)
    rnd = core.close_betting(rnd, now=15.0)
    return core.deal(rnd, game, table, DECK, set(bets), now=now)


# ----- configuration --------------------------------------------------------------------------
def test_the_shipped_example_has_a_table_of_each_game() -> None:
    tables = load_tables()
    assert {t.game for t in tables} == {"texas-bonus", "casino-holdem"}
    assert all(t.betting_seconds > 0 and t.decision_seconds > 0 for t in tables)


def test_timers_default_to_the_rules_and_timeouts_come_from_the_rules() -> None:
    table = parse_tables('[[tables]]\nid = "a"\ngame = "texas-bonus"')[0]
    assert (table.betting_seconds, table.decision_seconds) == (15.0, 10.0)
    assert dict(table.rules.timeout_actions) == {"preflop": "fold", "flop": "check", "turn": "check"}
    custom = parse_tables('[[tables]]\nid = "a"\ngame = "casino-holdem"\n'
                          '[tables.rules]\ntimeout_actions = { flop = "raise" }')[0]
    assert custom.rules.timeout_actions["flop"] == "raise"


def test_a_rules_file_is_read_relative_to_the_tables_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "vegas.toml").write_text('game = "texas-bonus"\nante_qualifier = "straight"\n')
    (tmp_path / "tables.toml").write_text(
        '[[tables]]\nid = "v"\ngame = "texas-bonus"\nrules_file = "vegas.toml"\n')
    table = load_tables(tmp_path / "tables.toml")[0]
    assert table.rules.ante_qualifier.slug == "straight"


def test_a_table_without_its_own_rules_file_starts_from_the_servers_rules_for_its_game(
        tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "server.toml").write_text('game = "texas-bonus"\nante_qualifier = "straight"\n')
    (tmp_path / "own.toml").write_text('game = "texas-bonus"\nante_qualifier = "flush"\n')
    (tmp_path / "tables.toml").write_text(
        '[[tables]]\nid = "a"\ngame = "texas-bonus"\n'
        '[[tables]]\nid = "b"\ngame = "texas-bonus"\nrules_file = "own.toml"\n'
        '[[tables]]\nid = "c"\ngame = "casino-holdem"\n')
    a, b, c = load_tables(tmp_path / "tables.toml", rules_files={"texas-bonus": tmp_path / "server.toml"})
    assert a.rules.ante_qualifier.slug == "straight"  # serve --rules texas-bonus=server.toml
    assert b.rules.ante_qualifier.slug == "flush"     # the table's own file wins
    assert c.rules == get_game("casino-holdem").rules
    assert load_tables(tmp_path / "tables.toml")[0].rules.ante_qualifier.slug == "flush"  # shipped


@pytest.mark.parametrize(("text", "names"), [
    ('[[tables]]\nid = "a"\ngame = "blackjack"', "tables[0].game"),
    ('[[tables]]\nid = "A B"\ngame = "texas-bonus"', "tables[0].id"),
    ('[[tables]]\nid = "a"\ngame = "texas-bonus"\nbetting_seconds = 0', "tables[0].betting_seconds"),
    ('[[tables]]\nid = "a"\ngame = "texas-bonus"\nbetting_secs = 5', "tables[0].betting_secs"),
    ('[[tables]]\nid = "a"\ngame = "texas-bonus"\n[[tables]]\nid = "a"\ngame = "casino-holdem"',
     "tables[1].id: 'a' is used by an earlier entry"),
    ('[[tables]]\nid = "a"\ngame = "texas-bonus"\n[tables.limits]\nante = { min = 5, max = 1 }',
     "limits.ante"),
    ("tables = []", "at least one"),
    ('[[tables]]\nid = "a"\ngame = "casino-holdem"\n[tables.rules]\ntimeout_actions = { flop = "sit" }',
     "timeout_actions.flop"),
])
def test_a_bad_entry_is_named(text: str, names: str) -> None:
    with pytest.raises(InvalidTablesError, match=names.replace("[", r"\[").replace("]", r"\]")):
        parse_tables(text, where="t.toml")


# ----- betting window -------------------------------------------------------------------------
def test_bets_can_be_changed_and_withdrawn_until_the_deadline() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = core.open_round(table, number=1, now=100.0)
    rnd = core.place_bets(rnd, game, "p1", {"ante": 100}, now=101.0)
    rnd = core.place_bets(rnd, game, "p1", {"ante": 300, "bonus": 100}, now=102.0)
    assert core.opening_stakes(rnd) == {"p1": 400}
    rnd = core.place_bets(rnd, game, "p1", {}, now=114.9)
    assert core.opening_stakes(rnd) == {}


def test_bets_after_no_more_bets_are_refused() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = core.open_round(table, number=1, now=100.0)
    with pytest.raises(LiveTableError, match="no more bets") as refused:
        core.place_bets(rnd, game, "p1", {"ante": 100}, now=115.0)  # the deadline itself
    assert refused.value.code == "no_more_bets"
    closed = core.close_betting(rnd, now=115.0)
    assert closed.phase is Phase.CLOSED
    with pytest.raises(LiveTableError, match="no more bets"):
        core.place_bets(closed, game, "p1", {"ante": 100}, now=115.0)


def test_the_window_cannot_close_early_and_limits_come_from_the_engine() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = core.open_round(table, number=1, now=0.0)
    with pytest.raises(LiveTableError, match="still open"):
        core.close_betting(rnd, now=14.99)
    with pytest.raises(BetLimitError):
        core.place_bets(rnd, game, "p1", {"ante": 10**9}, now=1.0)
    with pytest.raises(BetLimitError):
        core.place_bets(rnd, game, "p1", {"bonus": 100}, now=1.0)  # no ante


# ----- the shared hand and the decision timers ----------------------------------------------
def test_one_shuffle_every_player_plays_the_same_cards() -> None:
    rnd = dealt(texas(), {"p1": {"ante": 100}, "p2": {"ante": 500, "bonus": 100}})
    assert rnd.phase is Phase.DECISION and rnd.point == "preflop" and rnd.deadline == 30.0
    decks = {seat.state.deck for seat in rnd.seats.values()}
    assert decks == {DECK[:9]}


def test_texas_timer_expiry_folds_preflop_then_checks_flop_and_turn() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"quiet": {"ante": 100}, "active": {"ante": 100}})
    rnd = core.decide(rnd, game, "active", "bet", now=21.0)
    assert not rnd.decision_due(29.99)
    plan = core.decision_plan(rnd, game, now=30.0)
    assert plan.steps["quiet"] == core.Step("preflop", "fold", "timeout", 0, 30.0)
    assert plan.steps["active"] == core.Step("preflop", "bet", "player", 200, 21.0)
    assert plan.stakes() == {"active": 200}
    rnd = core.apply_decisions(rnd, game, table, plan, set(), now=30.0)
    assert rnd.point == "flop" and rnd.deadline == 40.0
    assert [s.player_id for s in rnd.at_point()] == ["active"]
    for point, now in (("flop", 40.0), ("turn", 50.0)):
        plan = core.decision_plan(rnd, game, now=now)
        assert plan.steps["active"] == core.Step(point, "check", "timeout", 0, now)
        rnd = core.apply_decisions(rnd, game, table, plan, set(), now=now)
    assert rnd.phase is Phase.SHOWDOWN
    assert [s.action for s in rnd.seats["active"].steps] == ["bet", "check", "check"]
    assert rnd.seats["quiet"].state.settlement.outcome == "fold"


def test_casino_timer_expiry_folds() -> None:
    table = casino()
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"p1": {"ante": 100, "aa": 100}})
    assert rnd.point == "flop"
    plan = core.decision_plan(rnd, game, now=30.0)
    assert plan.steps["p1"].action == "fold" and plan.steps["p1"].source == "timeout"
    rnd = core.apply_decisions(rnd, game, table, plan, set(), now=30.0)
    assert rnd.phase is Phase.SHOWDOWN
    assert core.returns(rnd) == {"p1": 0}


def test_a_point_closes_early_once_everyone_decided_and_decisions_are_final() -> None:
    table = casino()
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"p1": {"ante": 100}, "p2": {"ante": 200}})
    rnd = core.decide(rnd, game, "p1", "raise", now=21.0)
    with pytest.raises(LiveTableError, match="already chose raise"):
        core.decide(rnd, game, "p1", "fold", now=21.5)
    with pytest.raises(LiveTableError, match="still running"):
        core.decision_plan(rnd, game, now=22.0)
    rnd = core.decide(rnd, game, "p2", "fold", now=22.0)
    assert rnd.decision_due(22.0)
    plan = core.decision_plan(rnd, game, now=22.0)
    assert plan.stakes() == {"p1": 200}


def test_decisions_after_the_timer_or_out_of_turn_are_refused() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"p1": {"ante": 100}})
    with pytest.raises(LiveTableError, match="no decision is open"):
        core.decide(rnd, game, "p1", "bet", now=30.0)
    with pytest.raises(LiveTableError, match="no bets in this round"):
        core.decide(rnd, game, "stranger", "bet", now=21.0)
    with pytest.raises(IllegalActionError):
        core.decide(rnd, game, "p1", "check", now=21.0)  # no check pre-flop


def test_an_unpaid_decision_becomes_the_timeout_action() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"p1": {"ante": 100}})
    rnd = core.decide(rnd, game, "p1", "bet", now=21.0)
    plan = core.decision_plan(rnd, game, now=21.0)
    rnd = core.apply_decisions(rnd, game, table, plan, {"p1"}, now=21.0)
    assert rnd.seats["p1"].steps == (core.Step("preflop", "fold", "unpaid", 0, 21.0),)
    assert rnd.phase is Phase.SHOWDOWN


def test_nobody_paid_means_no_deal_and_a_pause() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = core.open_round(table, number=1, now=0.0)
    rnd = core.place_bets(rnd, game, "p1", {"ante": 100}, now=1.0)
    rnd = core.deal(core.close_betting(rnd, now=15.0), game, table, DECK, paid=set(), now=15.0)
    assert rnd.phase is Phase.PAUSE and rnd.deck is None and rnd.deadline == 18.0


# ----- what is shown --------------------------------------------------------------------------
def _names(indices: tuple[int, ...]) -> set[str]:
    return {str(index_to_card(i)) for i in indices}


def test_hidden_cards_are_in_no_view_before_the_reveal() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"p1": {"ante": 100}, "p2": {"ante": 100}})
    rnd = core.decide(rnd, game, "p1", "fold", now=21.0)  # p1's hand is settled early...
    visible_by_point = {"preflop": 0, "flop": 3, "turn": 4}
    while rnd.phase is Phase.DECISION:
        assert rnd.point is not None
        hidden = _names(DECK[2:4] + DECK[4 + visible_by_point[rnd.point]:])
        texts = repr(views.public_view(rnd, table)) + repr(views.seat_view(rnd, game, "p1")) \
            + repr(views.seat_view(rnd, game, "p2"))
        shown = {token.strip("'\"[],") for token in texts.split()}
        assert not hidden & shown, rnd.point  # ...but the dealer's cards stay hidden from p1 too
        rnd = core.decide(rnd, game, "p2", "bet", now=rnd.deadline - 1) if rnd.all_decided() is False else rnd
        rnd = core.apply_decisions(rnd, game, table, core.decision_plan(rnd, game, now=rnd.deadline), set(),
                                   now=rnd.deadline)
    view = views.public_view(rnd, table)
    assert set(view["dealer_cards"]) | set(view["board"]) == _names(DECK[2:9])
    assert views.seat_view(rnd, game, "p1")["settlement"]["outcome"] == "fold"


def test_every_player_is_settled_on_their_own_bets_and_decisions() -> None:
    table = casino()
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"raiser": {"ante": 100}, "big": {"ante": 1000}, "folder": {"ante": 100}})
    rnd = core.decide(rnd, game, "raiser", "raise", now=21.0)
    rnd = core.decide(rnd, game, "big", "call", now=21.0)
    rnd = core.decide(rnd, game, "folder", "fold", now=21.0)
    rnd = core.apply_decisions(rnd, game, table, core.decision_plan(rnd, game, now=21.0), set(), now=21.0)
    settled = core.settlements(rnd)
    assert settled["folder"].outcome == "fold" and settled["folder"].total_returned == 0
    assert settled["raiser"].outcome == settled["big"].outcome != "fold"
    assert settled["big"].total_returned == 10 * settled["raiser"].total_returned
    assert rnd.seats["big"].total_stake == settled["big"].total_stake == 3000


# ----- the Bonus, paid at the deal ------------------------------------------------------------
def test_a_won_bonus_is_paid_at_the_deal_and_not_again_at_the_settlement() -> None:
    table = texas()
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"p1": {"ante": 100, "bonus": 100}, "p2": {"ante": 100}})  # player A-A
    assert core.bonus_payouts(rnd) == {"p1": 3100}  # A-A pays 30 to 1 on the hole cards
    assert views.seat_view(rnd, game, "p1")["bonus"]["status"] == "won"
    assert views.seat_view(rnd, game, "p2")["bonus"] is None
    rnd = core.apply_decisions(rnd, game, table, core.decision_plan(rnd, game, now=30.0), set(), now=30.0)
    assert rnd.phase is Phase.SHOWDOWN  # both folded by the timer
    settlement = core.settlements(rnd)["p1"]
    assert settlement.line("bonus") is not None and settlement.line("bonus").returned == 3100
    assert core.returns(rnd) == {"p1": settlement.total_returned - 3100, "p2": 0}


def test_with_the_both_aces_line_an_aces_bonus_waits_for_the_dealers_cards() -> None:
    table = parse_tables('[[tables]]\nid = "tx"\ngame = "texas-bonus"\n'
                         '[tables.rules]\nbonus_both_aces = { pays = 100 }')[0]
    game = get_game(table.game, table.rules)
    rnd = dealt(table, {"p1": {"ante": 100, "bonus": 100}})  # A-A for the player and the dealer
    assert core.bonus_payouts(rnd) == {}
    bonus = views.seat_view(rnd, game, "p1")["bonus"]
    assert bonus["status"] == "pending" and bonus["returned"] == 0
    rnd = core.decide(rnd, game, "p1", "bet", now=21.0)
    while rnd.phase is Phase.DECISION:
        rnd = core.apply_decisions(rnd, game, table, core.decision_plan(rnd, game, now=rnd.deadline), set(),
                                   now=rnd.deadline)
    settlement = core.settlements(rnd)["p1"]
    assert settlement.line("bonus").returned == 10100  # the both-A-A line, paid with the settlement
    assert core.returns(rnd) == {"p1": settlement.total_returned}


# ----- seats that played alike share their engine state and their view ------------------------
WAYS = {"all-in": ("bet", "bet", "bet"), "flop only": ("bet", "bet", "check"), "folder": ("fold",)}


Played = dict[str, tuple[dict[str, int], tuple[str, ...]]]


def crowd_round(players_per_way: int) -> tuple[TableConfig, core.LiveRound, Played]:
    """Every way of ``WAYS`` with two sizes of bets, ``players_per_way`` players each, to the showdown."""
    table = texas()
    game = get_game(table.game, table.rules)
    played = {f"{way}-{size}-{n}": ({"ante": size, "bonus": size}, actions)
              for way, actions in WAYS.items() for size in (100, 500) for n in range(players_per_way)}
    rnd = dealt(table, {player: bets for player, (bets, _actions) in played.items()})
    street = 0
    while rnd.phase is Phase.DECISION:
        for player, (_bets, actions) in played.items():
            if street < len(actions) and rnd.seats[player].state.phase == rnd.point:
                rnd = core.decide(rnd, game, player, actions[street], now=rnd.deadline - 1)
        rnd = core.apply_decisions(rnd, game, table, core.decision_plan(rnd, game, now=rnd.deadline), set(),
                                   now=rnd.deadline)
        street += 1
    return table, rnd, played


def test_seats_that_played_alike_share_one_engine_state_equal_to_their_own_replay() -> None:
    table, rnd, played = crowd_round(players_per_way=3)
    game = get_game(table.game, table.rules)
    assert rnd.phase is Phase.SHOWDOWN
    for player, (bets, actions) in played.items():  # each seat as if its engine ran alone
        assert rnd.seats[player].state == game.replay(bets, DECK, actions)[0]
    # 3 ways x 2 sizes: six states for eighteen seats.
    assert len({id(seat.state) for seat in rnd.seats.values()}) == 6
    assert rnd.seats["folder-100-0"].state is rnd.seats["folder-100-2"].state
    assert rnd.seats["folder-100-0"].state is not rnd.seats["folder-500-0"].state


def test_seat_views_are_each_players_view_and_alike_seats_share_one() -> None:
    table, rnd, played = crowd_round(players_per_way=2)
    game = get_game(table.game, table.rules)
    rnd = core.finish(rnd, table, now=100.0)
    free = replace(rnd.seats["all-in-100-1"], free={"reward": "r1", "campaign": "c", "free_ante": 100})
    rnd = replace(rnd, seats={**rnd.seats, "all-in-100-1": free})
    shared = views.seat_views(rnd, game, [*played, "nobody"])
    assert shared == {player: views.seat_view(rnd, game, player) for player in [*played, "nobody"]}
    assert shared["nobody"] is None
    assert shared["flop only-500-0"] is shared["flop only-500-1"]
    assert shared["flop only-500-0"] is not shared["flop only-100-0"]
    assert shared["all-in-100-1"] is not shared["all-in-100-0"]  # a free round's view is its own
    assert shared["all-in-100-1"]["free_round"]["reward"] == "r1"
