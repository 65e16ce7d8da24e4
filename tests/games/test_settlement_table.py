"""The settlement table: every field under every outcome, with amounts worked out by hand.

Each row: deal (player | dealer | board), bets, decisions, rule overrides, the expected outcome,
whether the dealer qualified, and every line as (field, stake, returned). Stakes are 100 for the
ante and side bets, so flop = 200 and turn = river = 100 (texas), raise = 200 (casino).
The per-row payout tables (Bonus, Ante and AA paytables) are in the rule-clause tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # conftest is not importable by name from every test run
    from conftest import Play


TEXAS = "texas-bonus"
CASINO = "casino-holdem"
BOTH_ACES = {"bonus_both_aces": {"pays": 1000}}

# fmt: off
Row = tuple[str, str, str, str, str, dict[str, int], list[str], dict[str, Any], str, bool | None,
            list[tuple[str, int, int]]]

TABLE: list[Row] = [
    ('texas fold, bonus A-K won', TEXAS, 'Ah Kd', 'Qh Qc', '',
     {'ante': 100, 'bonus': 100}, ['fold'], {}, 'fold', None,
     [('ante', 100, 0), ('bonus', 100, 1600)]),
    ('texas fold, bonus lost', TEXAS, '7h 2d', 'Qh Qc', '',
     {'ante': 100, 'bonus': 100}, ['fold'], {}, 'fold', None,
     [('ante', 100, 0), ('bonus', 100, 0)]),
    ('texas win with a flush: every main bet 1:1', TEXAS, 'Ah 8h', 'Kc Qd', 'Kh 5h 2h 9c Jd',
     {'ante': 100, 'bonus': 100}, ['bet', 'bet', 'bet'], {}, 'win', None,
     [('ante', 100, 200), ('bonus', 100, 0), ('flop', 200, 400), ('turn', 100, 200), ('river', 100, 200)]),
    ('texas win with a straight, flush qualifier: ante stand-off', TEXAS, '9s 8d', 'Kh Qc', '7c 6d 5h 2s 2c',
     {'ante': 100, 'bonus': 100}, ['bet', 'check', 'bet'], {}, 'win', None,
     [('ante', 100, 100), ('bonus', 100, 0), ('flop', 200, 400), ('river', 100, 200)]),
    ('texas win with a straight, straight qualifier: ante 1:1', TEXAS, '9s 8d', 'Kh Qc', '7c 6d 5h 2s 2c',
     {'ante': 100, 'bonus': 100}, ['bet', 'check', 'bet'], {'ante_qualifier': 'straight'}, 'win', None,
     [('ante', 100, 200), ('bonus', 100, 0), ('flop', 200, 400), ('river', 100, 200)]),
    ('texas win with trips, straight qualifier: ante stand-off', TEXAS, '7h 7d', 'Kc Qd', '7c Ks 5h Jc 2d',
     {'ante': 100, 'bonus': 100}, ['bet', 'bet', 'check'], {'ante_qualifier': 'straight'}, 'win', None,
     [('ante', 100, 100), ('bonus', 100, 400), ('flop', 200, 400), ('turn', 100, 200)]),
    ('texas win without any more bets', TEXAS, 'Ah Ad', 'Kc Qd', '2s 7h 9c Jd 3h',
     {'ante': 100}, ['bet', 'check', 'check'], {}, 'win', None,
     [('ante', 100, 100), ('flop', 200, 400)]),
    ('texas lose: every main bet lost, bonus stands', TEXAS, 'Kc Kd', 'Ah Ad', '2s 7h 9c Jd 3h',
     {'ante': 100, 'bonus': 100}, ['bet', 'bet', 'bet'], {}, 'lose', None,
     [('ante', 100, 0), ('bonus', 100, 1100), ('flop', 200, 0), ('turn', 100, 0), ('river', 100, 0)]),
    ('texas lose holding a flush to a higher flush', TEXAS, '8h 2h', 'Ah 3h', 'Kh 5h 9h 9c Jd',
     {'ante': 100}, ['bet', 'check', 'bet'], {}, 'lose', None,
     [('ante', 100, 0), ('flop', 200, 0), ('river', 100, 0)]),
    ('texas tie: main bets returned, bonus stands', TEXAS, 'Ah Kd', 'Ac Kh', '2s 7h 9c Jd 3h',
     {'ante': 100, 'bonus': 100}, ['bet', 'check', 'check'], {}, 'tie', None,
     [('ante', 100, 100), ('bonus', 100, 1600), ('flop', 200, 200)]),
    ('texas tie on a board flush: ante returned, not paid', TEXAS, '2c 3d', '4c 5d', 'Ah Kh 9h 7h 2h',
     {'ante': 100, 'bonus': 100}, ['bet', 'bet', 'bet'], {}, 'tie', None,
     [('ante', 100, 100), ('bonus', 100, 0), ('flop', 200, 200), ('turn', 100, 100), ('river', 100, 100)]),
    ('texas both A-A line: player and dealer A-A', TEXAS, 'Ah Ad', 'As Ac', 'Kd 7s 5c 2h 9d',
     {'ante': 100, 'bonus': 100}, ['bet', 'check', 'check'], BOTH_ACES, 'tie', None,
     [('ante', 100, 100), ('bonus', 100, 100100), ('flop', 200, 200)]),
    ('texas both A-A line on, dealer without A-A: the A-A row', TEXAS, 'Ah Ad', 'Ks Kc', 'Qd 7s 5c 2h 9d',
     {'ante': 100, 'bonus': 100}, ['bet', 'check', 'check'], BOTH_ACES, 'win', None,
     [('ante', 100, 100), ('bonus', 100, 3100), ('flop', 200, 400)]),
    ('texas both A-A line on a fold', TEXAS, 'Ah Ad', 'As Ac', '',
     {'ante': 100, 'bonus': 100}, ['fold'], BOTH_ACES, 'fold', None,
     [('ante', 100, 0), ('bonus', 100, 100100)]),
    ('casino fold loses ante and AA', CASINO, 'Ah Ad', 'Qh Qc', 'As 7c 2d',
     {'ante': 100, 'aa': 100}, ['fold'], {}, 'fold', None,
     [('ante', 100, 0), ('aa', 100, 0)]),
    ('casino fold, AA settled on fold', CASINO, 'Ah Ad', 'Qh Qc', 'As 7c 2d',
     {'ante': 100, 'aa': 100}, ['fold'], {'aa_settles_on_fold': True}, 'fold', None,
     [('ante', 100, 0), ('aa', 100, 800)]),
    ('casino dealer not qualified: ante by paytable, raise back', CASINO, 'Ah 8h', 'Qc 7d', 'Kh 5h 2h 9c Jd',
     {'ante': 100, 'aa': 100}, ['raise'], {}, 'win', False,
     [('ante', 100, 300), ('aa', 100, 2100), ('raise', 200, 200)]),
    ('casino dealer not qualified: win over a higher hand', CASINO, '7c 2d', 'Kc Jd', 'Qs 9h 5c 3d 8s',
     {'ante': 100, 'aa': 100}, ['call'], {}, 'win', False,
     [('ante', 100, 200), ('aa', 100, 0), ('raise', 200, 200)]),
    ('casino qualified, player higher: raise 1:1', CASINO, 'Ah Ad', '5c 5d', 'Ks 9c 7h 2d 3s',
     {'ante': 100, 'aa': 100}, ['raise'], {}, 'win', True,
     [('ante', 100, 200), ('aa', 100, 800), ('raise', 200, 400)]),
    ('casino qualified, player royal flush', CASINO, 'As Ks', '4c 4d', 'Qs Js Ts 4h 9d',
     {'ante': 100, 'aa': 100}, ['raise'], {}, 'win', True,
     [('ante', 100, 10100), ('aa', 100, 10100), ('raise', 200, 400)]),
    ('casino qualified, dealer higher: ante and raise lost', CASINO, 'Ah Kd', '4c 4d', 'Qs 9c 7h 2d 3s',
     {'ante': 100, 'aa': 100}, ['raise'], {}, 'lose', True,
     [('ante', 100, 0), ('aa', 100, 0), ('raise', 200, 0)]),
    ('casino dealer higher, AA still paid', CASINO, 'Ah Ad', '7h 7s', 'As 7c 7d Kh 2s',
     {'ante': 100, 'aa': 100}, ['raise'], {}, 'lose', True,
     [('ante', 100, 0), ('aa', 100, 3100), ('raise', 200, 0)]),
    ('casino equal hands: ante and raise back, AA wins', CASINO, 'Ah 3d', 'Ac 2c', 'As Ks Kd Qh 9c',
     {'ante': 100, 'aa': 100}, ['raise'], {}, 'tie', True,
     [('ante', 100, 100), ('aa', 100, 800), ('raise', 200, 200)]),
    ('casino ante only', CASINO, 'Ah Ad', '5c 5d', 'Ks 9c 7h 2d 3s',
     {'ante': 250}, ['raise'], {}, 'win', True,
     [('ante', 250, 500), ('raise', 500, 1000)]),
]
# fmt: on


@pytest.mark.parametrize(
    ("game", "player", "dealer", "board", "bets", "actions", "rules", "outcome", "qualifies", "lines"),
    [row[1:] for row in TABLE],
    ids=[row[0] for row in TABLE],
)
def test_settlement_table(
    play: Play,
    game: str,
    player: str,
    dealer: str,
    board: str,
    bets: dict[str, int],
    actions: list[str],
    rules: dict[str, Any],
    outcome: str,
    qualifies: bool | None,
    lines: list[tuple[str, int, int]],
) -> None:
    settlement = play(game, player, dealer, board, bets, actions, **rules).settlement
    assert settlement is not None
    assert (settlement.outcome, settlement.dealer_qualifies) == (outcome, qualifies)
    assert [(line.field, line.stake, line.returned) for line in settlement.lines] == lines
    assert settlement.total_stake == sum(stake for _, stake, _ in lines)
    assert settlement.total_returned == sum(back for _, _, back in lines)
    assert settlement.net == settlement.total_returned - settlement.total_stake
    assert [line.net for line in settlement.lines] == [back - stake for _, stake, back in lines]


def test_table_covers_every_field_and_outcome() -> None:
    """The table above has every field of both games under every outcome it can take."""
    seen = {(row[1], field, row[8]) for row in TABLE for field, _, _ in row[10]}
    texas = {(TEXAS, f, o) for f in ("ante", "bonus", "flop") for o in ("win", "lose", "tie")}
    texas |= {(TEXAS, f, o) for f in ("turn", "river") for o in ("win", "lose", "tie")}
    texas |= {(TEXAS, f, "fold") for f in ("ante", "bonus")}
    casino = {(CASINO, f, o) for f in ("ante", "aa", "raise") for o in ("win", "lose", "tie")}
    casino |= {(CASINO, f, "fold") for f in ("ante", "aa")}
    assert texas | casino <= seen
    assert {row[9] for row in TABLE if row[1] == CASINO and row[8] != "fold"} == {True, False}
