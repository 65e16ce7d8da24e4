"""What the jackpot tests share: a jackpot file whose pool a four of a kind wins (so a test can
deal it in a few thousand shuffles; a royal flush needs ~650,000), wishes for the first five
cards, and the pool's audit read straight from the database."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.dealing import Wanted, wanted

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.jackpot import JackpotRules, first_five, first_five_result, load_jackpot
from dealerpoker.server.db import Database
from dealerpoker.server.jackpot import PoolAudit, audit_pool, history

FOUR_WINS = """
[jackpot]
stake = 100
currency = "EUR"
pool_category = "four-of-a-kind"
contribution = "1/5"
seed = 100000
sharing = "equal"
[jackpot.awards]
full-house = 5000
flush = 3000
straight = 2500
three-of-a-kind = 1500
[jackpot.rates]
USD = "1.08"
JPY = "160"
"""


def jackpot_file(tmp_path: Path, text: str = FOUR_WINS) -> str:
    path = tmp_path / "jackpot.toml"
    path.write_text(text, "utf-8")
    return str(path)


def first_five_is(rules: JackpotRules, category: HandCategory, **cards: str) -> Wanted:
    """A deal whose first five cards (hole cards and flop) make ``category``."""
    return wanted(**cards, where=lambda deck: first_five_result(rules, first_five(deck)).category is category)


def rules_of(path: str | None = None) -> JackpotRules:
    return load_jackpot(path)


def pool_audit(database_url: str) -> PoolAudit:
    async def read() -> PoolAudit:
        database = Database(database_url)
        try:
            async with database.reading() as connection:
                return await audit_pool(connection)
        finally:
            await database.dispose()
    return asyncio.run(read())


def pool_events(database_url: str) -> list[dict[str, object]]:
    async def read() -> list[dict[str, object]]:
        database = Database(database_url)
        try:
            async with database.reading() as connection:
                return await history(connection, limit=1000)
        finally:
            await database.dispose()
    return asyncio.run(read())
