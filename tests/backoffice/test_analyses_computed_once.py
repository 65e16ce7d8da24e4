"""The back office's exact analyses under concurrent requests: a games page loaded twice while
its analysis is being computed shares one computation, and two writers of one analysis in the
disk cache (two threads, as a server's worker threads are) never trip over each other's files."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dealerpoker.analysis.rtp import MemoryCache
from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.games.rules import load_rules
from dealerpoker.server.backoffice.analyses import Analyses


class CountingCache(MemoryCache):
    def __init__(self) -> None:
        super().__init__()
        self.saved = 0

    def save(self, key: str, document: dict[str, Any], tables: dict[str, Any]) -> None:
        self.saved += 1
        super().save(key, document, tables)


@pytest.mark.slow
def test_requests_for_the_same_analysis_while_it_is_computed_share_it() -> None:
    cache = CountingCache()
    analyses = Analyses(database=None, cache=cache)  # type: ignore[arg-type]  # documents need no database
    rules = load_rules("casino-holdem")

    async def three_requests() -> list[dict[str, Any]]:
        return await asyncio.gather(*(analyses.document(rules) for _ in range(3)))

    documents = asyncio.run(three_requests())
    assert cache.saved == 1
    assert documents[0] == documents[1] == documents[2]
    assert documents[0]["game"] == "casino-holdem"


def test_two_threads_saving_one_key_both_land_a_whole_file(tmp_path: Path) -> None:
    cache = DiskCache(tmp_path)
    start = threading.Barrier(8)
    failures: list[BaseException] = []

    def save(value: int) -> None:
        start.wait()
        try:
            for _write in range(20):  # many writes, to overlap the threads' renames
                cache.save("key", {"value": value}, {"table": np.full(10_000, value)})
        except BaseException as error:  # reported by the assertion below
            failures.append(error)

    threads = [threading.Thread(target=save, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    document = cache.load("key")
    tables = cache.load_tables("key")
    assert document is not None and tables is not None
    assert set(tables["table"].tolist()) <= set(range(8))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left
