"""Audit records of live rounds: stored by the table's commits, read back, verified, tampered with.

The table runs on a fake clock against the real SQL store (SQLite file), so every time in the
record is known exactly; the HTTP side runs a real server on the same database.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.live.conftest import LONG_SESSIONS, live_server
from tests.live.records_support import (
    SEED,
    START,
    TABLE,
    FakeClock,
    Quiet,
    failures,
    play,
    play_players,
    player_record,
    texas_round,
    whole_records,
)
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database

from dealerpoker.fairness import commitment, table_client_seed
from dealerpoker.fairness.verify import verify_record
from dealerpoker.games import get_game
from dealerpoker.server.db import Database
from dealerpoker.server.errors import ConflictError
from dealerpoker.server.live.audit import LiveRecords
from dealerpoker.server.live.records_api import LiveRoundRecordOut, LiveRoundsOut
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.tables.config import parse_tables


def test_the_whole_round_record_holds_every_seat_and_verifies(tmp_path: Path) -> None:
    url, ids, clock, table = play(tmp_path)
    (record,) = asyncio.run(whole_records(url))
    assert failures(record) == []
    alice, bob = ids["alice"], ids["bob"]
    assert record["mode"] == "table" and record["scope"] == "round"
    assert record["table"] == {"id": "audit-t", "number": 1} and record["round_id"] == "audit-t/1"
    assert record["rules_fingerprint"] == table.rules.fingerprint()
    assert record["rules"]["limits"]["ante"]["min"] == table.rules.limits["ante"].min
    assert record["opened_at"] == clock.iso(0) and record["betting_closed_at"] == clock.iso(15)
    assert [(r["event"], r["at"]) for r in record["reveals"]] == [
        ("preflop", clock.iso(15)), ("flop", clock.iso(25)), ("turn", clock.iso(35)),
        ("showdown", clock.iso(45))]
    assert record["settled_at"] == clock.iso(45)
    fairness = record["fairness"]
    assert fairness["commitment"] == commitment(SEED) and fairness["server_seed"] == SEED
    # Carol could not cover her bet when betting closed: the seed hashes the two paid seats.
    assert fairness["client_seed"] == table_client_seed(
        "audit-t/1", {alice: {"ante": 100, "bonus": 100}, bob: {"ante": 500}})
    assert fairness["nonce"] == 1
    seats = {seat["player_id"]: seat for seat in record["seats"]}
    assert set(seats) == {alice, bob}
    assert [(a["point"], a["action"], a["source"], a["reason"], a["at"], a["stake"])
            for a in seats[alice]["actions"]] == [
        ("preflop", "bet", "player", None, clock.iso(20), 200),
        ("flop", "check", "timer", "timeout", clock.iso(35), 0),
        ("turn", "check", "timer", "timeout", clock.iso(45), 0)]
    assert [(a["action"], a["source"], a["reason"]) for a in seats[bob]["actions"]] == [
        ("fold", "timer", "timeout")]
    assert [line["field"] for line in seats[alice]["settlement"]["lines"]] == [
        "ante", "bonus", "flop"]
    assert seats[bob]["settlement"]["outcome"] == "fold" and seats[bob]["total_returned"] == 0
    txids = {entry["txid"] for entry in record["ledger"]}
    assert {f"audit-t/1:{alice}:bets", f"audit-t/1:{alice}:preflop", f"audit-t/1:{bob}:bets"} <= txids
    assert not any(ids["carol"] in txid for txid in txids)
    assert all(entry["amount"] != 0 for entry in record["ledger"])


def test_a_players_part_holds_only_their_seat_and_transfers(tmp_path: Path) -> None:
    url, ids, _clock, _table = play(tmp_path)
    record = asyncio.run(player_record(url, ids["bob"]))
    assert failures(record) == []
    assert record["scope"] == "player" and record["player_id"] == ids["bob"]
    assert [seat["player_id"] for seat in record["seats"]] == [ids["bob"]]
    text = json.dumps(record)
    assert ids["alice"] not in text  # no other player's id, bets or transfers
    assert {entry["account"] for entry in record["ledger"]} == {ids["bob"], "house:EUR"}
    findings = {f.subject: f for f in verify_record(record)}
    assert "only the whole round's record" in findings["fairness.client_seed"].message


@pytest.mark.parametrize(("path", "value", "subject"), [
    (("deck", 0), None, "deck[0]"),
    (("seats", 0, "actions", 0, "stake"), 300, "seats[{alice}].actions[0].stake"),
    (("seats", 0, "settlement", "lines", 0, "returned"), None, "seats[{alice}].settlement.lines[0].returned"),
    (("seats", 0, "bets", "ante"), 200, "fairness.client_seed"),
    (("ledger", 1, "amount"), None, "ledger"),
    (("reveals", 1, "cards", "board", 0), "As", "reveals[1].cards.board[0]"),
    (("reveals", 2, "at"), "2026-11-29T11:00:00.000000Z", "reveals[2].at"),
    (("seats", 0, "actions", 0, "at"), "2026-11-29T12:00:30.000000Z", "seats[{alice}].actions[0].at"),
    (("seats", 0, "actions", 1, "source"), "robot", "seats[{alice}].actions[1].source"),
    (("seats", 0, "total_returned"), 1, "seats[{alice}].total_returned"),
])
def test_changing_one_value_fails_naming_what_does_not_match(
        tmp_path: Path, path: tuple[Any, ...], value: Any, subject: str) -> None:
    url, ids, _clock, _table = play(tmp_path)
    (record,) = asyncio.run(whole_records(url))
    alice = ids["alice"]
    assert record["seats"][0]["player_id"] == alice  # seats are sorted by player id
    tampered = copy.deepcopy(record)
    target = tampered
    for key in path[:-1]:
        target = target[key]
    old = target[path[-1]]
    if value is None:  # one digit more or less, or another card
        value = (old + 1) if isinstance(old, int) else old
        if path[0] == "ledger":
            value = old - 1
    target[path[-1]] = value
    bad = failures(tampered)
    assert any(line.startswith("MISMATCH  record_digest") for line in bad)
    # With the digest recomputed (a forger's first move), the content check still names it.
    from dealerpoker.fairness.verify import record_digest
    tampered["record_digest"] = record_digest(tampered)
    named = [line.split(":")[0].removeprefix("MISMATCH  ") for line in failures(tampered)]
    assert any(name.startswith(subject.format(alice=alice)) for name in named), named


def test_the_endpoint_and_the_history_give_a_player_their_own_rounds(tmp_path: Path) -> None:
    url, players, _clock, _table = play_players(tmp_path)
    alice = {"Authorization": f"Bearer {players['alice'].token}"}
    with live_server(url, **LONG_SESSIONS) as (base, _app):  # alice's token was made days ago
        session = httpx.post(f"{base}/api/session", json={}).json()
        stranger = {"Authorization": f"Bearer {session['token']}"}
        record_url = f"{base}/api/tables/audit-t/rounds/1/record"
        response = httpx.get(record_url, headers=alice)
        assert response.status_code == 200, response.text
        record = response.json()
        LiveRoundRecordOut.model_validate(record)
        assert failures(record) == [] and record["player_id"] == players["alice"].player_id
        assert httpx.get(record_url, headers=stranger).status_code == 403
        assert httpx.get(f"{base}/api/tables/audit-t/rounds/9/record", headers=alice).status_code == 404
        assert httpx.get(f"{base}/api/tables/audit-t/rounds/0/record", headers=alice).status_code == 422
        assert httpx.get(record_url).status_code == 401
        history = httpx.get(f"{base}/api/live-rounds", headers=alice).json()
        LiveRoundsOut.model_validate(history)
        (item,) = history["rounds"]
        assert item["round_id"] == "audit-t/1" and item["game"] == "texas-bonus"
        assert item["record"] == "/api/tables/audit-t/rounds/1/record"
        seat = record["seats"][0]
        assert item["net"] == seat["total_returned"] - seat["total_stake"]
        older = httpx.get(f"{base}/api/live-rounds", params={"before": item["settled_at"]}, headers=alice)
        assert older.json() == {"rounds": []}
        assert httpx.get(f"{base}/api/live-rounds", headers=stranger).json() == {"rounds": []}
        assert httpx.get(f"{base}/api/live-rounds?limit=0", headers=alice).status_code == 422
        assert httpx.get(f"{base}/api/live-rounds?colour=red", headers=alice).status_code == 422
        spec = httpx.get(f"{base}/openapi.json").json()
        assert "/api/tables/{table_id}/rounds/{number}/record" in spec["paths"]
        assert "/api/live-rounds" in spec["paths"]


def test_an_unsettled_round_has_no_record_yet(tmp_path: Path) -> None:
    url, players, clock, table = play_players(tmp_path)

    async def open_next() -> None:
        database = Database(url)
        try:
            store = SqlStore(database, lambda: clock.iso(clock.now - START))
            runner = TableRunner(table, get_game(table.game, table.rules), store, Quiet(), clock=clock,
                                 watchers=lambda: 1, new_seed=lambda: SEED)
            await runner.resume()
            clock.now = START + 49
            await runner.advance()  # round 2 opens
            await runner.bet(players["alice"].player_id, {"ante": 100})
            clock.now = START + 64
            await runner.advance()  # dealt, waiting for the pre-flop decision
            with pytest.raises(ConflictError, match="not settled yet"):
                await LiveRecords(database).player_record(players["alice"].player_id, "audit-t", 2)
            assert [r["round_id"] for r in await LiveRecords(database).history(
                players["alice"].player_id, limit=5, before=None)] == ["audit-t/1"]
        finally:
            await database.dispose()

    asyncio.run(open_next())


def test_export_verify_and_report_include_live_rounds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dealerpoker.cli import main

    url, ids, _clock, _table = play(tmp_path)
    export = tmp_path / "export.jsonl"
    assert main(["export", "--since", "2026-11-29", "--until", "2026-11-29T12:00:46Z", "--format", "jsonl",
                 "--database", url, "--output", str(export)]) == 0
    assert "exported 1 round record(s)" in capsys.readouterr().err
    (record,) = [json.loads(line) for line in export.read_text().splitlines()]
    assert record["scope"] == "round" and len(record["seats"]) == 2
    assert main(["verify", "--round-file", str(export)]) == 0
    assert "VERIFIED" in capsys.readouterr().out
    # Settled at 12:00:45: an --until at that very time excludes it (exclusive).
    assert main(["export", "--since", "2026-11-29", "--until", "2026-11-29T12:00:45Z",
                 "--database", url]) == 0
    assert capsys.readouterr().out == ""
    # One byte changed: bob's opening ante 500 -> 600 in the file.
    bob = ids["bob"]
    text = export.read_text()
    changed = text.replace('"bets":{"ante":500}', '"bets":{"ante":600}', 1)
    assert changed != text
    export.write_text(changed)
    assert main(["verify", "--round-file", str(export)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH  record_digest" in out and "MISMATCH  fairness.client_seed" in out
    assert f"MISMATCH  seats[{bob}].settlement.lines[0].stake" in out and "FAILED" in out

    assert main(["report", "--since", "2026-11-29", "--until", "2026-11-30", "--database", url,
                 "--json", "--no-rtp"]) == 0
    report = json.loads(capsys.readouterr().out)
    (game,) = report["games"]
    assert (game["game"], game["rounds"], game["live_rounds"], game["hands"]) == ("texas-bonus", 1, 1, 2)
    assert game["stake"] == sum(seat["total_stake"] for seat in record["seats"])
    assert game["returned"] == sum(seat["total_returned"] for seat in record["seats"])
    assert report["since"] == "2026-11-29T00:00:00.000000Z"
    assert report["until"] == "2026-11-30T00:00:00.000000Z"
    assert main(["report", "--date", "2026-11-29", "--database", url, "--json", "--no-rtp"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == report["games"]
    assert main(["report", "--since", "2026-11-29", "--database", url, "--no-rtp"]) == 0
    out = capsys.readouterr().out
    assert "2026-11-29 to now (until exclusive)" in out
    assert "texas-bonus: 1 round(s) (1 live, 2 player hands)" in out
    assert main(["report", "--since", "2026-11-30", "--database", url, "--no-rtp"]) == 0
    assert "no settled rounds" in capsys.readouterr().out
    for bad, message in ((["--date", "2026-11-29", "--since", "2026-11-28"], "--date is one UTC day"),
                         (["--until", "2026-11-29"], "--until needs --since"),
                         ([], "--date DAY or --since TIME"),
                         (["--since", "2026-11-29", "--until", "2026-11-28"], "the range is empty")):
        assert main(["report", *bad, "--database", url, "--no-rtp"]) == 2
        assert message in capsys.readouterr().err


CHECK_SCRIPT = """
import { checkRound } from "%s";
const records = JSON.parse(%s);
const out = [];
for (const record of records) out.push(await checkRound(record));
const failed = (checks) => checks.filter((c) => !c.ok).map((c) => c.subject);
console.log(JSON.stringify(out.map(({ ok, checks }) => ({ ok, failed: failed(checks) }))));
"""


def test_the_browser_check_confirms_a_live_round_and_names_a_false_reveal(tmp_path: Path) -> None:
    """web/js/fairness.js (the replay view's check) in Node: the same file runs in Chromium."""
    import shutil
    import subprocess

    import dealerpoker

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the browser test checks the same file in Chromium")
    url, ids, _clock, _table = play(tmp_path)
    record = asyncio.run(player_record(url, ids["alice"]))
    false_flop = copy.deepcopy(record)
    false_flop["reveals"][1]["cards"]["board"][2] = record["reveals"][2]["cards"]["board"][0]
    false_seed = copy.deepcopy(record)
    false_seed["fairness"]["server_seed"] = "00" * 32
    script = CHECK_SCRIPT % ((Path(dealerpoker.__file__).parent / "web" / "js" / "fairness.js").as_uri(),
                             json.dumps(json.dumps([record, false_flop, false_seed])))
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    good, flop, seed = json.loads(done.stdout)
    assert good == {"ok": True, "failed": []}
    assert flop == {"ok": False, "failed": ["flop reveal"]}
    assert seed["ok"] is False and "commitment" in seed["failed"]


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [p for key, item in value.items() for p in _leaves(item, (*path, key))] or [path]
    if isinstance(value, list):
        return [p for k, item in enumerate(value) for p in _leaves(item, (*path, k))] or [path]
    return [path]


def test_any_malformed_value_is_reported_never_raised(tmp_path: Path) -> None:
    url, _ids, _clock, _table = play(tmp_path)
    (record,) = asyncio.run(whole_records(url))
    from dealerpoker.fairness.verify import record_digest

    # Ledger memos are notes ("live bets"), not checked; the rules document is checked by its
    # fingerprint (test_verify.py).
    paths = [p for p in _leaves(record) if p and p[0] not in ("rules", "record_digest") and p[-1] != "memo"]
    paths += [("rules",), ("seats", 0), ("seats",), ("reveals",), ("ledger", 0), ("fairness",), ("table",)]
    unchecked: set[tuple[Any, ...]] = set()
    for path in paths:
        for odd in (None, "x", [], {}, -1):
            tampered = copy.deepcopy(record)
            target = tampered
            for key in path[:-1]:
                target = target[key]
            if target[path[-1]] == odd:
                continue
            target[path[-1]] = odd
            tampered["record_digest"] = record_digest(tampered)
            findings = verify_record(tampered)  # must not raise
            if all(f.ok for f in findings):
                unchecked.add((json.dumps(path), repr(odd)))
    assert unchecked == set(), sorted({re.sub(r"\d+", "N", p) for p, _ in unchecked})


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database("records") as url:
        yield url


@pytest.mark.postgres
@pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES)
def test_the_records_on_postgresql(database: str) -> None:
    """The same round on PostgreSQL (migration 0004, the settlement commit, the txid prefix query)."""
    table = parse_tables(TABLE)[0]
    players = asyncio.run(texas_round(database, table, FakeClock()))
    (record,) = asyncio.run(whole_records(database))
    assert failures(record) == [] and len(record["seats"]) == 2
    mine = asyncio.run(player_record(database, players["alice"].player_id))
    assert failures(mine) == [] and [s["player_id"] for s in mine["seats"]] == [players["alice"].player_id]
    assert {e["account"] for e in mine["ledger"]} == {players["alice"].player_id, "house:EUR"}


def test_a_bonus_paid_at_the_deal_is_in_the_record_and_verifies(tmp_path: Path) -> None:
    """A server seed whose deal gives the shared hand a pair: alice's Bonus wins at the deal
    (its own txid), the rest is credited at the settlement; the record adds up to both."""
    from dealerpoker.fairness import deck_order

    bets = {"p_alice": {"ante": 100, "bonus": 100}, "p_bob": {"ante": 500}}
    client = table_client_seed("audit-t/1", bets)
    seed = next(candidate for candidate in (f"{k:064x}" for k in range(1, 1000))
                if deck_order(candidate, client, 1)[0] // 4 == deck_order(candidate, client, 1)[1] // 4)
    table = parse_tables(TABLE)[0]
    asyncio.run(texas_round(f"sqlite:///{tmp_path}/live.db", table, FakeClock(), seed))
    (record,) = asyncio.run(whole_records(f"sqlite:///{tmp_path}/live.db"))
    assert failures(record) == []
    alice = next(seat for seat in record["seats"] if seat["player_id"] == "p_alice")
    bonus_line = next(line for line in alice["settlement"]["lines"] if line["field"] == "bonus")
    assert bonus_line["returned"] > 100
    mine = {e["txid"]: e["amount"] for e in record["ledger"] if e["account"] == "p_alice"}
    assert mine["audit-t/1:p_alice:bonus"] == bonus_line["returned"]
    assert sum(a for a in mine.values() if a > 0) == alice["total_returned"]
    # A Bonus paid twice (a second transfer beside the deal's) is caught.
    from dealerpoker.fairness.verify import record_digest

    tampered = copy.deepcopy(record)
    twice = [dict(e, txid="audit-t/1:p_alice:bonus-again") for e in tampered["ledger"]
             if e["txid"] == "audit-t/1:p_alice:bonus"]
    tampered["ledger"] += twice
    tampered["record_digest"] = record_digest(tampered)
    assert any(line.startswith("MISMATCH  seats[p_alice].ledger.credits") for line in failures(tampered))


def test_exact_rtps_agree_across_tables_whose_rules_differ_only_in_limits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A live table with its own limits plays under another rules document than solo play:
    a field keeps its RTP when every document gives the same one, and gets none otherwise."""
    from fractions import Fraction

    from dealerpoker.analysis import rtp as analysis_rtp
    from dealerpoker.cli.report import exact_rtps

    solo, live = (parse_tables(f'[[tables]]\nid = "t"\ngame = "casino-holdem"\n{extra}')[0].rules
                  for extra in ("", "[tables.limits]\nante = { min = 500, max = 50000 }"))
    assert solo.fingerprint() != live.fingerprint()
    aa = {solo.fingerprint(): Fraction(9, 10), live.fingerprint(): Fraction(8, 10)}

    def fake_rtps(rules: Any, cache: Any = None) -> dict[str, Fraction | None]:
        return {"ante": Fraction(9784, 10000), "aa": aa[rules.fingerprint()], "raise": None}

    monkeypatch.setattr(analysis_rtp, "bet_rtps", fake_rtps)
    records = [{"game": "casino-holdem", "rules": rules.to_dict(), "rules_fingerprint": rules.fingerprint()}
               for rules in (solo, live, solo)]
    assert exact_rtps(records) == {"casino-holdem": {"ante": 0.9784, "aa": None, "raise": None}}
    assert exact_rtps(records[:1]) == {"casino-holdem": {"ante": 0.9784, "aa": 0.9, "raise": None}}


def test_the_players_settled_message_gives_the_address_of_their_record() -> None:
    from dealerpoker.server.live.ports import MemoryStore

    async def scenario() -> None:
        table = parse_tables(TABLE)[0]
        clock = FakeClock()
        runner = TableRunner(table, get_game(table.game, table.rules), MemoryStore({"p": 10_000}), Quiet(),
                             clock=clock, watchers=lambda: 1, new_seed=lambda: SEED)
        await runner.advance()
        await runner.bet("p", {"ante": 100})
        assert "record" not in runner.seat_message("p")
        clock.now = START + 15
        await runner.advance()
        assert "record" not in runner.seat_message("p")  # dealt, not settled
        await runner.decide("p", "fold")
        await runner.advance()
        assert runner.round is not None and str(runner.round.phase) == "pause"
        assert runner.seat_message("p")["record"] == "/api/tables/audit-t/rounds/1/record"
        assert "record" not in runner.seat_message("stranger")

    asyncio.run(scenario())
