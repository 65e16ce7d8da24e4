"""The choice of ``RoundStore`` implementation for a database and a wallet, made once at start
(``rounds/store.py`` describes each)."""

from __future__ import annotations

from collections.abc import Collection

from dealerpoker.server.db import Database
from dealerpoker.server.operators.wallet import SeamlessWallet
from dealerpoker.server.rounds.postgres import PostgresRoundStore, SeamlessPostgresRoundStore
from dealerpoker.server.rounds.sql import SqlRoundStore
from dealerpoker.server.rounds.store import RoundStore
from dealerpoker.server.wallet import LedgerWallet, Wallet


def round_store(database: Database, wallet: Wallet, *, without: Collection[str] = ()) -> RoundStore:
    """The store for this database and wallet (``without``: the special paths not to take,
    ``postgres_store`` and ``known_rows``, for the benchmark's comparison)."""
    remember = "known_rows" not in without
    if database.is_sqlite or "postgres_store" in without:
        return SqlRoundStore(database, wallet)
    if isinstance(wallet, LedgerWallet):
        return PostgresRoundStore(database, remember=remember)
    if isinstance(wallet, SeamlessWallet):
        return SeamlessPostgresRoundStore(database, wallet, remember=remember)
    return SqlRoundStore(database, wallet)
