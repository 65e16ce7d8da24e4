"""The live jackpot bet under load on two `dealerpoker serve` processes (one PostgreSQL database,
one Redis; issue 30): 40 players at two tables, one table's clock owned by each process (half of
the first table's players on the process that does not own it: their bets are forwarded), every
player placing the jackpot bet in the same rounds, for a few rounds, both tables dealing and
settling against the one pool at once. Afterwards the pool is, to the cent, its seeds plus every
contribution less every award, as the players were told them (none lost to a concurrent update,
none counted twice), at ``GET /api/jackpot`` of either process and in the database; every
player's balance is the sum of their ledger entries, each jackpot stake and award posted once,
and ``dealerpoker audit-ledger`` finds nothing.

The cards are the shuffle's: the jackpot file makes a pair win the pool (about one first five in
two and a half) and pays a high card a fixed award, so pool awards, their sharing among a
table's 20 bets and fixed awards all happen while both processes race; every assertion holds
whatever was dealt. The timers are short and on the real clock: a round's decisions are left to
its timer (which folds), a window a bet missed is simply not counted for that player.
"""

from __future__ import annotations

import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
from tests.jackpot.support import jackpot_file, pool_audit
from tests.live.cluster_support import CLUSTER_MARKS, two_processes
from tests.live.conftest import WAIT, LivePlayer, is_table, table_entry
from tests.support.databases import audit, entries_of
from tests.support.servers import DEALERPOKER
from tests.support.waiting import until

pytestmark = CLUSTER_MARKS

SEED, CONTRIBUTION, ANTE = 100_000, 20, 100
PAIR_WINS = f"""
[jackpot]
stake = 100
currency = "EUR"
pool_category = "one-pair"
contribution = "1/5"
seed = {SEED}
sharing = "equal"
[jackpot.awards]
high-card = 50
"""
PLAYERS_PER_TABLE, ROUNDS = 20, 3
SHARED, OWN = "jackpot-a", "jackpot-b"  # the first process owns SHARED's clock, the second OWN's


def bet_at_once(players: list[LivePlayer], message: dict[str, Any]) -> list[dict[str, Any]]:
    """``LivePlayer.reply`` for every player, pipelined: the pings all go out first, each player's
    bet right after its pong (so its answer is the next ``you`` or ``error``), then the answers
    are collected; the bets reach the table within a few round trips, not forty."""
    pinged = [len(p.received) for p in players]
    for player in players:
        player.send({"type": "ping"})
    sent = []
    for player, since in zip(players, pinged, strict=True):
        player.until(lambda m: m["type"] == "pong", since=since)
        sent.append(len(player.received))
        player.send(message)
    return [player.until(lambda m: m["type"] in {"you", "error"}, since=since)
            for player, since in zip(players, sent, strict=True)]


def play(players: list[LivePlayer], rounds: int, seats: dict[str, list[dict[str, Any]]],
         errors: list[BaseException]) -> None:
    """``rounds`` rounds in which the players all bet the ante and the jackpot in one window;
    each player's settled jackpot seats (``seats[player]``) as they were told them."""
    try:
        played = 0
        for _attempt in range(rounds + 3):
            window = players[0].until(is_table("betting_open"))
            replies = bet_at_once(players, {"type": "bet", "bets": {"ante": ANTE}, "jackpot": True})
            assert all(r["type"] == "you" or r.get("error") == "no_more_bets" for r in replies), replies
            seated = [p for p, r in zip(players, replies, strict=True)
                      if r["type"] == "you" and r["seat"] is not None]
            for player in seated:
                mine = player.until(lambda m, w=window: m["type"] == "you" and m.get("round") == w["round"]
                                    and m["phase"] == "pause")
                seats[player.id].append({"round": window["round"], **mine["seat"]["jackpot"]})
            played += bool(seated)
            if played == rounds:
                return
        raise AssertionError(f"only {played} of {rounds} rounds took bets")
    except BaseException as error:  # reported by the test's thread
        errors.append(error)


def test_two_processes_settle_forty_jackpot_bets_a_round_against_one_pool(tmp_path: Path) -> None:
    path = jackpot_file(tmp_path, PAIR_WINS)
    timers = {"betting": 5, "decision": 2, "pause": 1}
    with two_processes(tmp_path, table_entry(SHARED, "casino-holdem").format(**timers), label="jackpot",
                       extra=("--jackpot", path),
                       more_tables=table_entry(OWN, "casino-holdem").format(**timers)) as cluster:
        first, second = cluster.first.base, cluster.second.base
        owners = until(lambda: (lambda a, b: (a, b) if a and b else None)(
            cluster.lease_owner(SHARED), cluster.lease_owner(OWN)), "both tables have an owner")
        assert owners[0] != owners[1], owners  # each process owns one table's clock
        half = PLAYERS_PER_TABLE // 2
        with ThreadPoolExecutor(max_workers=8) as connecting:  # 40 sessions and sockets, side by side
            at = {SHARED: list(connecting.map(lambda base: LivePlayer(base, SHARED, currency="EUR"),
                                              [first] * half + [second] * half)),
                  OWN: list(connecting.map(lambda _: LivePlayer(second, OWN, currency="EUR"),
                                           range(PLAYERS_PER_TABLE)))}
        players = [*at[SHARED], *at[OWN]]
        cluster.clients.extend(players)
        seats: dict[str, list[dict[str, Any]]] = {p.id: [] for p in players}
        errors: list[BaseException] = []
        threads = [threading.Thread(target=play, args=(table, ROUNDS, seats, errors))
                   for table in at.values()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        balances = {p.id: p.balance() for p in players}
        shown = [httpx.get(f"{base}/api/jackpot", timeout=WAIT).json()["pool"] for base in (first, second)]
        database = cluster.database
        found, report = pool_audit(database), audit(database)
        entries = entries_of(database, list(balances))
        checked = subprocess.run([DEALERPOKER, "audit-ledger", "--database", database],
                                 capture_output=True, text=True, timeout=120)
    bets = [seat for mine in seats.values() for seat in mine]
    assert all(seat["status"] in ("won", "lost") for seat in bets), bets
    pool_awards = [seat["award"] for seat in bets if seat["pool_award"]]
    won = {seat["round"] for seat in bets if seat["pool_award"]}  # each reseeds the pool once
    pool = SEED * (1 + len(won)) + CONTRIBUTION * len(bets) - sum(pool_awards)
    print(f"{len(bets)} live jackpot bets on two processes, {len(won)} pool win(s); pool {pool}")
    assert len(bets) >= ROUNDS * PLAYERS_PER_TABLE  # at least a full table's worth of rounds each
    assert found.ok and found.amount == pool and shown == [pool, pool]
    assert found.contributions == CONTRIBUTION * len(bets) and found.awards == sum(pool_awards)
    assert found.seeds == SEED * (1 + len(won))
    for player_id, mine in seats.items():
        posted = entries[player_id]
        assert len({txid for txid, _ in posted}) == len(posted)  # each transfer once
        assert sum(amount for _, amount in posted) == balances[player_id]  # the balance is the ledger's
        stakes = sorted(txid.rsplit(":", 2)[0] for txid, _ in posted if txid.endswith(":jackpot"))
        assert stakes == sorted(seat["round"] for seat in mine)
        awards = sorted((txid.rsplit(":", 2)[0], amount) for txid, amount in posted
                        if txid.endswith(":jackpot-award"))
        assert awards == sorted((seat["round"], seat["award"]) for seat in mine if seat["award"])
    assert report.ok, report
    assert checked.returncode == 0, checked.stdout + checked.stderr
