"""The back office on a seeded database: reports agree with the ledger to the cent, the rounds
search answers in under 200 ms, a draft paytable's exact house edge comes within 30 s.

    .venv/bin/python benchmarks/backoffice.py --rounds 100000 [--players 500] [--days 28]
        [--database sqlite:///FILE] [--port 8600] [--write]

Seeding plays every round through the server's own round code (``server/rounds/plan.py``:
``opening`` and ``next_step``, the engine, random legal decisions) and writes each round's row
and its transfers through the ledger's one writer (``ledger.post``), a thousand rounds per
transaction, over ``--days`` of settlement times. Then a fresh ``dealerpoker serve`` process on
that database answers, over loopback HTTP, as an auditor signed in: the rounds search (each query
20 times; median and slowest), the report of every day (compared with the ledger's sums by day
and currency, which must be equal to the cent), and each game's draft paytable (time the server
took, and wall time of the request).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).parent))
from _results import machine, write_section

DEALERPOKER = str(Path(sys.executable).parent / "dealerpoker")
STAFF_PASSWORD = "benchmark password 2026"
BATCH = 1000


async def seed(url: str, rounds: int, players: int, days: int, rng: random.Random) -> dict[str, Any]:
    from sqlalchemy import insert

    from dealerpoker.games import get_game
    from dealerpoker.server import ledger
    from dealerpoker.server.accounts import create_player
    from dealerpoker.server.clock import timestamp
    from dealerpoker.server.db import Database
    from dealerpoker.server.dealing import committed_deal, draw_server_seed
    from dealerpoker.server.fairness import store_rules_document
    from dealerpoker.server.rounds import plan
    from dealerpoker.server.schema import rounds as rounds_table

    database = Database(url)
    await database.migrate()
    games = [get_game("texas-bonus"), get_game("casino-holdem")]
    start = datetime(2026, 11, 1, tzinfo=UTC)
    step = timedelta(days=days) / rounds
    async with database.transaction() as connection:
        for game in games:
            await store_rules_document(connection, game, timestamp(start))
        made = [
            await create_player(connection, starting_balance=10**12, at=timestamp(start))
            for _ in range(players)
        ]
    ids = [p.player_id for p in made]
    nonces = dict.fromkeys(ids, 0)
    fingerprints = {game.name: game.rules.fingerprint() for game in games}
    house = "house:EUR"
    begun = time.perf_counter()
    for first in range(0, rounds, BATCH):
        rows, moves = [], []
        for number in range(first, min(rounds, first + BATCH)):
            at = timestamp(start + step * number)
            game = games[number % 2]
            player = rng.choice(ids)
            nonces[player] += 1
            side = "bonus" if game.name == "texas-bonus" else "aa"
            bets = {"ante": rng.choice((100, 200, 500, 1000))}
            if rng.random() < 0.5:
                bets[side] = rng.choice((100, 500))
            round_id = f"r_{number:012x}"
            client_seed = f"seed-{player}"
            deal = committed_deal(draw_server_seed(rng), client_seed, nonces[player])
            planned = plan.opening(
                game,
                round_id=round_id,
                player_id=player,
                currency="EUR",
                bets=bets,
                deal=deal,
                client_seed=client_seed,
                nonce=nonces[player],
                idempotency_key=None,
                rules_fingerprint=fingerprints[game.name],
                at=at,
            )
            row = dict(planned.columns)
            transfers = list(planned.money.transfers)
            state = planned.state
            while row["status"] == "open":
                action = rng.choice(list(game.legal_actions(state)))
                later = plan.next_step(game, row, action, source="player", at=at, state=state)
                row.update(later.columns)
                transfers += later.money.transfers
                state = later.state
                planned = later
            row["view"] = planned.render(0)
            rows.append(row)
            moves.append((round_id, transfers, at))
        async with database.transaction() as connection:
            for round_id, transfers, at in moves:
                await ledger.post(connection, transfers, house=house, at=at, round_id=round_id, new=True)
            await connection.execute(insert(rounds_table), rows)
    seconds = time.perf_counter() - begun
    async with database.transaction() as connection:
        audit = await ledger.audit(connection)
    await database.dispose()
    assert audit.ok, audit
    return {"seconds": seconds, "start": start, "end": start + timedelta(days=days), "players": ids}


def analysis_cache(directory: Path) -> tuple[Path, int]:
    """A cache directory for the server holding only the card counts ``analyze`` cached (never a
    finished analysis: each draft then costs its payout pass, as a new paytable does), and how
    many count files it found."""
    from dealerpoker.cli._analysis_cache import cache_dir

    mine = directory / "analysis-cache"
    mine.mkdir()
    found = 0
    for counts in cache_dir().glob("counts-*.npz"):
        (mine / counts.name).symlink_to(counts)
        found += 1
    return mine, found


def serve(url: str, port: int, directory: Path, cache: Path) -> subprocess.Popen[bytes]:
    log = (directory / "serve.log").open("wb")
    process = subprocess.Popen(
        [DEALERPOKER, "serve", "--database", url, "--port", str(port), "--no-rtp"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "DEALERPOKER_CACHE_DIR": str(cache)},
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit(f"the server did not start: see {directory / 'serve.log'}")


def staff(url: str, base: str, name: str, role: str) -> httpx.Client:
    made = subprocess.run(
        [DEALERPOKER, "admin", "create-user", name, "--role", role, "--database", url],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    first = re.search(r"one-time password: (\S+)", made)
    assert first is not None, made
    client = httpx.Client(base_url=base, timeout=120)
    signed = client.post("/admin/api/session", json={"name": name, "password": first.group(1)}).json()
    client.headers["X-CSRF-Token"] = signed["csrf"]
    client.post(
        "/admin/api/password", json={"current": first.group(1), "new": STAFF_PASSWORD}
    ).raise_for_status()
    return client


def timed(client: httpx.Client, path: str, params: dict[str, Any], repeat: int) -> tuple[list[float], Any]:
    times, body = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        answer = client.get(path, params=params)
        times.append((time.perf_counter() - started) * 1000)
        answer.raise_for_status()
        body = answer.json()
    return times, body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--days", type=int, default=28)
    parser.add_argument(
        "--database", default=None, help="default: a new SQLite file in a temporary directory"
    )
    parser.add_argument("--port", type=int, default=8600)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--write", action="store_true", help="write the section of benchmarks/RESULTS.md")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="dealerpoker-backoffice-"))
    url = args.database or f"sqlite:///{directory / 'backoffice.db'}"
    rng = random.Random(2026)
    seeded = asyncio.run(seed(url, args.rounds, args.players, args.days, rng))
    print(f"seeded {args.rounds:,} rounds in {seeded['seconds']:.1f} s", flush=True)
    base = f"http://127.0.0.1:{args.port}"
    cache, count_files = analysis_cache(directory)
    server = serve(url, args.port, directory, cache)
    try:
        auditor = staff(url, base, "bench-auditor", "auditor")
        admin = staff(url, base, "bench-admin", "admin")
        player = seeded["players"][7]
        middle = (seeded["start"] + timedelta(days=args.days // 2)).strftime("%Y-%m-%dT%H:%M:%S.000000Z")
        day_after = (seeded["start"] + timedelta(days=args.days // 2 + 1)).strftime(
            "%Y-%m-%dT%H:%M:%S.000000Z"
        )
        searches = {
            "newest 50, no filter": {},
            "one player": {"player": player},
            "game and one day": {"game": "casino-holdem", "since": middle, "until": day_after},
            "stake 1,500-1,600": {"min_stake": 1500, "max_stake": 1600},
            "settled, texas-bonus": {"status": "settled", "game": "texas-bonus"},
            "round id": {"round": f"r_{args.rounds // 3:012x}"},
            "player, stake >= 2,000, one day": {
                "player": player,
                "min_stake": 2000,
                "since": middle,
                "until": day_after,
            },
        }
        rows = []
        for label, params in searches.items():
            times, body = timed(auditor, "/admin/api/rounds", params, args.repeat)
            rows.append((label, len(body["rounds"]), statistics.median(times), max(times)))
            print(
                f"search {label}: {len(body['rounds'])} rows, median {statistics.median(times):.1f} ms, "
                f"slowest {max(times):.1f} ms",
                flush=True,
            )
        since, until = (
            seeded["start"].date().isoformat(),
            (seeded["end"] + timedelta(days=1)).date().isoformat(),
        )
        report_times, report = timed(auditor, "/admin/api/reports", {"since": since, "until": until}, 3)
        agreement = asyncio.run(agree(url, report["rows"], since, until))
        print(
            f"report: {len(report['rows'])} rows, median {statistics.median(report_times):.0f} ms; "
            f"{agreement}",
            flush=True,
        )
        drafts = {
            "texas-bonus": {"bonus_paytable": [{"name": "Ace - Ace", "hands": ["AA"], "pays": 40}]},
            "casino-holdem": {"ante_paytable": {"flush": 3}},
        }
        draft_rows = []
        for game, changes in drafts.items():
            started = time.perf_counter()
            answer = admin.post(f"/admin/api/games/{game}/draft", json={"changes": changes})
            answer.raise_for_status()
            wall = time.perf_counter() - started
            rtps = ", ".join(
                f"{name} {value['float']:.6f}" for name, value in answer.json()["rtps"].items() if value
            )
            draft_rows.append((game, json.dumps(changes), rtps, answer.json()["seconds"], wall))
            print(
                f"draft {game}: house edge {answer.json()['house_edge_float']:.6f} in "
                f"{answer.json()['seconds']:.2f} s (request {wall:.2f} s)",
                flush=True,
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
    load = os.getloadavg()
    if args.write:
        write(args, seeded, rows, report, report_times, agreement, draft_rows, load, count_files)


async def agree(url: str, rows: list[dict[str, Any]], since: str, until: str) -> str:
    """Whether the report's staked and returned equal the ledger's, each day and currency."""
    from dealerpoker.server.backoffice.reports import ledger_totals
    from dealerpoker.server.db import Database

    database = Database(url)
    try:
        async with database.reading() as connection:
            ledger = await ledger_totals(connection, since=since, until=until)
    finally:
        await database.dispose()
    report: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        sums = report.setdefault((row["period"], row["currency"]), [0, 0])
        sums[0] += row["staked"]
        sums[1] += row["returned"]
    differences = sorted(
        key for key in set(ledger) | set(report) if tuple(report.get(key, (0, 0))) != ledger.get(key, (0, 0))
    )
    staked = sum(value[0] for value in ledger.values())
    assert not differences, f"report and ledger differ on {differences[:5]}"
    return f"{len(ledger)} days: report equals ledger to the cent on each (staked {staked:,} cents in all)"


def write(
    args: argparse.Namespace,
    seeded: dict[str, Any],
    rows: list[Any],
    report: dict[str, Any],
    report_times: list[float],
    agreement: str,
    drafts: list[Any],
    load: tuple[float, float, float],
    count_files: int,
) -> None:
    command = (
        f".venv/bin/python benchmarks/backoffice.py --rounds {args.rounds} --players {args.players} "
        f"--days {args.days} --write"
    )
    body = [
        f"Measured {machine()} with `{command}`; load average at the end "
        f"{load[0]:.1f}, {load[1]:.1f}, {load[2]:.1f} (the machine is shared: figures are pessimistic).",
        "",
        f"{args.rounds:,} solo rounds of {args.players} players over {args.days} days, seeded through "
        f"the round code (`plan.opening`/`next_step`, random legal decisions) and `ledger.post` in "
        f"{seeded['seconds']:.0f} s, on SQLite; then a fresh `dealerpoker serve` answered over loopback "
        f"HTTP, signed in as an auditor (each search {args.repeat} times; target: under 200 ms).",
        "",
        "| rounds search | rows | median ms | slowest ms |",
        "|---|---:|---:|---:|",
    ]
    body += [
        f"| {label} | {count} | {median:.1f} | {slowest:.1f} |" for label, count, median, slowest in rows
    ]
    body += [
        "",
        f"Report of every day ({len(report['rows'])} rows: day x game x table x currency): median "
        f"{statistics.median(report_times):.0f} ms of 3; {agreement}.",
        "",
        "| draft paytable | changes | exact RTP of each bet | server s | request s |",
        "|---|---|---:|---:|---:|",
    ]
    body += [
        f"| {game} | `{changes}` | {edge} | {server:.2f} | {wall:.2f} |"
        for game, changes, edge, server, wall in drafts
    ]
    body += [
        "",
        f"The server's analysis cache held only the card counts `analyze` had cached ({count_files} "
        "files; no finished analysis), so each draft's time is its payout pass over them, which is what "
        "a new paytable costs (target: 30 s). Without cached counts the first draft of a game counts "
        "them first (see Analysis above).",
    ]
    write_section("Back office", "\n".join(body))


if __name__ == "__main__":
    main()
