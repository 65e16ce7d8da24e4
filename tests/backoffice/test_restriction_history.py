"""A player's restriction history in the back office (issue 18, page 3): every limit, self-exclusion
and cool-off set by the player or their operator, with who, when, before and after, newest first,
read by every role; kept in ``rg_events``, which the database keeps append-only (migration 0014)."""

from __future__ import annotations

import asyncio
import secrets
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, text
from tests.server.conftest import Player

from dealerpoker.server.db import Database
from dealerpoker.server.schema import rg_events

from .support import StaffMember
from .test_operators import of_operator, operator_id


def changes_of(client: Any, player: Player, acme: str) -> None:
    """The player lowers a limit then raises it (the raise waits for its cooling-off), their
    operator sets its own limit and a cool-off, lifts it, and the player takes a break."""
    for amount in (5_000, 20_000):
        answer = client.request("PUT", "/api/responsible-gaming/limits", json={"loss_day": amount},
                                headers=player.headers)
        assert answer.status_code == 200, answer.text
    services = client.app.state.services
    by = f"operator:{acme}"

    async def operator_changes() -> None:
        await services.responsible.set_limits(player.id, {"stake_day": 9_000, "session_minutes": 90},
                                              source="operator", by=by)
        until = services.clock() + timedelta(days=2)
        await services.responsible.restrict(player.id, "cool_off", until, by=by, reason="asked on the phone")
        await services.responsible.restrict(player.id, "none", None, by=by)

    client.portal.call(operator_changes)
    assert player.post("/api/responsible-gaming/break", {"hours": 24}).status_code == 200


@pytest.mark.parametrize("role", ["admin", "support", "auditor"])
def test_every_role_reads_each_change_with_who_when_before_and_after(client: Any, role: str) -> None:
    player, acme = Player(client), operator_id()
    of_operator(client, player, acme, "gina-4")
    changes_of(client, player, acme)
    member = StaffMember(client, f"rg-{role}-{secrets.token_hex(3)}", role)
    page = member.get(f"/admin/api/players/{player.id}")
    assert page.status_code == 200, page.text
    history = page.json()["restriction_history"]
    by = f"operator:{acme}"
    assert [(e["kind"], e["by"]) for e in history] == [
        ("restriction", "player"), ("restriction", by), ("restriction", by), ("limit", by),
        ("limit", "player"), ("limit", "player")]  # newest first; no play sessions among them
    brk, lifted, cool_off, operator_limits, raised, lowered = (e["detail"] for e in history)
    assert lowered["before"] == {"loss_day": {"amount": None}}
    assert lowered["after"] == {"loss_day": {"amount": 5_000}}
    assert raised["before"] == {"loss_day": {"amount": 5_000}}
    assert raised["after"]["loss_day"]["amount"] == 5_000 and raised["after"]["loss_day"]["pending"] == 20_000
    assert operator_limits["source"] == "operator" and operator_limits["after"] == {
        "stake_day": {"amount": 9_000}, "session_minutes": {"amount": 90}}
    assert cool_off["before"] is None and cool_off["after"]["kind"] == "cool_off"
    assert cool_off["after"]["by"] == by and cool_off["reason"] == "asked on the phone"
    assert lifted["before"] == cool_off["after"] and lifted["after"] is None
    assert brk["before"] is None and brk["after"]["kind"] == "cool_off" and brk["after"]["by"] == "player"
    assert all(e["at"] for e in history)


def test_the_log_refuses_to_be_changed_or_emptied(database_url: str, tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'rg.db'}" if database_url == "sqlite://" else database_url
    player = f"p_{secrets.token_hex(6)}"  # the PostgreSQL database is shared by the session's tests

    async def tamper() -> list[str]:
        database = Database(url)
        refusals = []
        try:
            await database.migrate()
            async with database.transaction() as connection:
                await connection.execute(rg_events.insert().values(
                    player_id=player, at="2026-01-01T00:00:00.000000Z", by="player", kind="limit",
                    detail="{}"))
            for statement in ("UPDATE rg_events SET by = 'someone else' WHERE player_id = :player",
                              "DELETE FROM rg_events WHERE player_id = :player"):
                try:
                    async with database.transaction() as connection:
                        await connection.execute(text(statement), {"player": player})
                except Exception as error:  # the trigger's refusal
                    refusals.append(str(error))
            async with database.transaction() as connection:
                mine = select(rg_events.c.by).where(rg_events.c.player_id == player)
                rows = (await connection.execute(mine)).all()
        finally:
            await database.dispose()
        assert [tuple(row) for row in rows] == [("player",)]
        return refusals

    refusals = asyncio.run(tamper())
    assert len(refusals) == 2 and all("rg_events is append-only" in refusal for refusal in refusals)
