"""Reports (issue 18, page 4): per day, week and month, per game, table, currency and operator; totals equal
to the cent to the ledger's; the exact RTP and its range from the analysis; CSV; refused to the
support role."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from contextlib import ExitStack
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from tests.server.conftest import LONG_SESSIONS, FakeClock, Player, TestClient, play_out
from tests.support.databases import fresh_database

from dealerpoker.analysis.moments import bet_moments
from dealerpoker.analysis.rtp import analysis_document
from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.games.rules import load_rules
from dealerpoker.server import Settings, create_app
from dealerpoker.server.backoffice import reports
from dealerpoker.server.db import Database
from dealerpoker.server.schema import live_seats

from .support import StaffMember
from .test_operators import of_operator

DAY = 24 * 3600


@pytest.fixture
def played(database_url: str) -> Iterator[tuple[TestClient, dict[str, Any]]]:
    """Two days of play: texas-bonus antes with Bonus bets and casino-holdem antes, three players
    (on PostgreSQL in a database of its own: a report reads every round of the database)."""
    with ExitStack() as stack:
        own = database_url.startswith("sqlite")
        url = database_url if own else stack.enter_context(fresh_database("reports"))
        yield from _play(url)


def _play(database_url: str) -> Iterator[tuple[TestClient, dict[str, Any]]]:
    clock = FakeClock()
    app = create_app(Settings(database_url=database_url, **LONG_SESSIONS), rng=random.Random(18), clock=clock,
                     analysis_cache=DiskCache())
    with TestClient(app) as client:
        players = [Player(client) for _ in range(3)]
        counts = {"texas-bonus": 0, "casino-holdem": 0}
        for day in range(2):
            for index, player in enumerate(players):
                for _ in range(4 + index):
                    play_out(player, player.open("texas-bonus", ante=100, bonus=100))
                    play_out(player, player.open("casino-holdem", ante=200))
                    counts["texas-bonus"] += 1
                    counts["casino-holdem"] += 1
            if day == 0:
                clock.advance(DAY)
        yield client, {"counts": counts, "players": players}


def test_the_report_agrees_with_the_ledger_to_the_cent(played: tuple[TestClient, dict[str, Any]]) -> None:
    client, facts = played
    auditor = StaffMember(client, "aud", "auditor")
    answer = auditor.get("/admin/api/reports", since="2026-01-01", until="2026-01-03", period="day")
    assert answer.status_code == 200, answer.text
    rows = answer.json()["rows"]
    assert {(r["period"], r["game"], r["table"]) for r in rows} == {
        (day, game, "solo") for day in ("2026-01-01", "2026-01-02")
        for game in ("texas-bonus", "casino-holdem")}
    assert sum(r["rounds"] for r in rows if r["game"] == "texas-bonus") == facts["counts"]["texas-bonus"]
    assert all(r["players"] == 3 for r in rows)
    services = client.app.state.services

    async def ledger() -> Any:
        async with services.database.reading() as connection:
            return await reports.ledger_totals(connection, since="2026-01-01", until="2026-01-03")

    assert client.portal is not None
    from_ledger = client.portal.call(ledger)
    for day in ("2026-01-01", "2026-01-02"):
        mine = [r for r in rows if r["period"] == day]
        assert (sum(r["staked"] for r in mine), sum(r["returned"] for r in mine)) == from_ledger[(day, "EUR")]
        assert all(r["ggr"] == r["staked"] - r["returned"] for r in mine)
    started = sum(p.start_balance for p in facts["players"])
    assert started - sum(p.balance() for p in facts["players"]) == sum(r["ggr"] for r in rows)

    week = auditor.get("/admin/api/reports", since="2026-01-01", until="2026-01-03",
                       period="week").json()["rows"]
    for game in ("texas-bonus", "casino-holdem"):
        (weekly,) = [r for r in week if r["game"] == game]
        assert weekly["period"] == "2026-W01" and weekly["players"] == 3
        assert weekly["staked"] == sum(r["staked"] for r in rows if r["game"] == game)


def test_the_exact_rtp_and_its_range_come_from_the_analysis(
        played: tuple[TestClient, dict[str, Any]]) -> None:
    client, _facts = played
    admin = StaffMember(client, "adm", "admin")
    (row,) = admin.get("/admin/api/reports", since="2026-01-01", until="2026-01-03", period="month",
                       game="texas-bonus").json()["rows"]
    rules = load_rules("texas-bonus")
    moments = bet_moments(rules, analysis_document(rules, DiskCache(), DiskCache()))
    hands = row["rounds"]  # every one an ante of 100 and a Bonus of 100
    expected = hands * 100 * (moments["ante"].edge + moments["bonus"].edge)
    assert row["exact_rtp"] == pytest.approx(float(1 - expected / Fraction(row["staked"])), abs=1e-12)
    spread = 3 * float(hands * 100**2 * (moments["ante"].variance + moments["bonus"].variance)) ** 0.5
    assert row["range_high"] - row["exact_rtp"] == pytest.approx(spread / row["staked"], rel=1e-9)
    assert row["flagged"] == (not row["range_low"] <= row["measured_rtp"] <= row["range_high"])
    assert row["measured_rtp"] == row["returned"] / row["staked"]
    assert row["hold"] == row["ggr"] / row["staked"]


def test_csv_and_refusals(played: tuple[TestClient, dict[str, Any]]) -> None:
    client, _facts = played
    admin = StaffMember(client, "adm2", "admin")
    csv = admin.get("/admin/api/reports", since="2026-01-01", until="2026-01-03", format="csv")
    assert csv.headers["content-type"].startswith("text/csv")
    lines = csv.text.splitlines()
    assert lines[0].startswith("period,game,table,currency,operator,rounds,players,staked,returned,ggr")
    assert len(lines) == 6 and lines[-1].startswith("total,,,EUR,,")  # 4 rows, then the EUR total
    support = StaffMember(client, "sup", "support")
    assert support.get("/admin/api/reports").status_code == 403
    bad = admin.get("/admin/api/reports", period="year")
    assert bad.status_code == 422 and "period" in bad.json()["message"]


def test_an_unfair_day_is_flagged() -> None:
    sums = reports.Sums()
    sums.add(1000, 100_000, 50_000, "f", (100_000, 10_000_000, 0, 0))  # returned half the stakes
    moments = bet_moments(load_rules("casino-holdem"),
                          analysis_document(load_rules("casino-holdem"), DiskCache(), DiskCache()))
    key = ("2026-01-01", "casino-holdem", "solo", "EUR", reports.EMBEDDED, "default")
    row = reports._row(key, sums, {"f": moments})
    assert row["flagged"] and row["measured_rtp"] == 0.5 and row["range_low"] > 0.5


def test_the_report_groups_and_filters_by_operator(played: tuple[TestClient, dict[str, Any]]) -> None:
    client, facts = played
    first = facts["players"][0]  # 4 rounds of each game a day; the two others 5 and 6
    of_operator(client, first, "acme", "first-1")
    auditor = StaffMember(client, "aud-op", "auditor")

    def rows(**params: Any) -> list[dict[str, Any]]:
        answer = auditor.get("/admin/api/reports", since="2026-01-01", until="2026-01-03", **params)
        assert answer.status_code == 200, answer.text
        return list(answer.json()["rows"])

    everything = rows()
    assert {r["operator"] for r in everything} == {"acme", reports.EMBEDDED}
    acme = rows(operator="acme")
    assert {(r["rounds"], r["players"]) for r in acme} == {(4, 1)} and len(acme) == 4
    assert {(r["rounds"], r["players"]) for r in rows(operator=reports.EMBEDDED)} == {(11, 2)}
    assert rows(operator="nobody") == []
    assert sum(r["staked"] for r in everything) == sum(r["staked"] for r in acme) + sum(
        r["staked"] for r in rows(operator=reports.EMBEDDED))
    csv = auditor.get("/admin/api/reports", since="2026-01-01", until="2026-01-03", operator="acme",
                      format="csv")
    assert csv.text.splitlines()[0].split(",")[4] == "operator" and ",acme," in csv.text.splitlines()[1]


def test_the_totals_add_up_and_open_rounds_are_shown_apart(played: tuple[TestClient, dict[str, Any]]) -> None:
    """One totals row per currency, the sums of the rows shown (players counted once); a round
    opened and not settled counts in no row but is listed apart with its stake; the RTPs say
    their basis; a range never reaches below 0%."""
    client, facts = played
    waiting = facts["players"][0].open("texas-bonus", ante=300, bonus=100)  # left open
    auditor = StaffMember(client, "aud-tot", "auditor")
    answer = auditor.get("/admin/api/reports", since="2026-01-01", until="2026-01-03").json()
    rows, (total,) = answer["rows"], answer["totals"]
    assert answer["rtp_basis"] == "staked"
    assert (total["period"], total["currency"]) == ("total", "EUR")
    for name in ("rounds", "staked", "returned", "ggr"):
        assert total[name] == sum(row[name] for row in rows), name
    assert total["players"] == 3 and sum(row["players"] for row in rows) == 12  # each counted once
    assert total["measured_rtp"] == total["returned"] / total["staked"]
    assert total["range_low"] <= total["exact_rtp"] <= total["range_high"]
    assert sum(r["rounds"] for r in rows) == sum(facts["counts"].values())  # the open one is in none
    assert answer["open_rounds"] == [{"game": "texas-bonus", "table": "solo", "currency": "EUR",
                                      "operator": reports.EMBEDDED, "rounds": 1,
                                      "staked": waiting["total_stake"]}]
    assert auditor.get("/admin/api/reports", since="2026-01-01", until="2026-01-03",
                       game="casino-holdem").json()["open_rounds"] == []
    sums = reports.Sums()  # one round: a range 3 standard deviations wide reaches far below 0
    sums.add(1, 600, 0, "f", (200, 200**2, 0, 0))
    moments = bet_moments(load_rules("casino-holdem"),
                          analysis_document(load_rules("casino-holdem"), DiskCache(), DiskCache()))
    key = ("2026-01-01", "casino-holdem", "solo", "EUR", reports.EMBEDDED, "default")
    row = reports._row(key, sums, {"f": moments})
    assert row["exact_rtp"] - 3 * float(moments["ante"].variance) ** 0.5 * 200 / 600 < 0
    assert row["range_low"] == 0.0 and not row["flagged"]


def test_a_misdeal_is_counted_apart_not_as_a_round(tmp_path: Path) -> None:
    """A studio table's round played out and one cancelled as a misdeal (every bet returned): the
    report counts one round, its stakes and returns, and the misdeal apart with what it returned;
    the ledger's totals (misdeals left out as well) still equal the report's to the cent."""
    from tests.live.test_studio_records import FakeClock as RecordsClock
    from tests.live.test_studio_records import _rounds

    url = f"sqlite:///{tmp_path}/studio.db"
    _ids, records = asyncio.run(_rounds(url, RecordsClock()))
    played, misdealt = records
    assert misdealt["misdeal"] is not None and played["misdeal"] is None, records

    async def read() -> tuple[reports.Groups, Any, int]:
        database = Database(url)
        try:
            async with database.reading() as connection:
                groups = await reports.collect(connection, since="2000-01-01", until="2100-01-01",
                                               period="month")
                ledger = await reports.ledger_totals(connection, since="2000-01-01", until="2100-01-01")
                voided = await connection.scalar(select(func.sum(live_seats.c.total_stake))
                                                 .where(live_seats.c.number == 2))  # the second round
            return groups, ledger, int(voided or 0)
        finally:
            await database.dispose()

    groups, ledger, voided = asyncio.run(read())
    (sums,) = groups.values()
    assert (sums.rounds, sums.misdeals, sums.voided) == (1, 1, voided) and voided > 0
    assert sums.players == {"p_alice", "p_bob"}
    (staked, returned), = ledger.values()
    assert (sums.staked, sums.returned) == (staked, returned)
