"""Rules in, exact figures out: the card counts from a :class:`~dealerpoker.analysis.paytable.CountsStore`
(counted by :class:`~dealerpoker.analysis.exact.Solver` on a miss, seconds), then the payout pass
(:func:`~dealerpoker.analysis.paytable.figures`, a fraction of a second). Above both, so neither
imports the other's user; numba is imported only when counting."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.figures import GameAnalysis
from dealerpoker.analysis.paytable import (
    Arrays,
    CardCounts,
    CountsStore,
    Progress,
    counting,
    counts_key,
    figures,
    with_entry,
)
from dealerpoker.games.rules import Rules


def exact_analysis(rules: Rules, store: CountsStore | None = None, *, deck: DeckSpec = FULL_DECK,
                   progress: Progress | None = None) -> GameAnalysis:
    """Rules in, exact figures out: the card counts from ``store`` (computed and stored on a miss,
    seconds), then the payout pass (a fraction of a second)."""
    key = counts_key(rules, deck)
    if store is None:
        return figures(rules, CardCounts(rules.game, deck, _count(rules, deck, progress)))
    arrays = store.load_counts(key)
    if arrays is None:
        # Counting takes a core for seconds: one process counts, the others needing the same
        # counts (a server's workers, two commands, a test run's processes) wait, then read them.
        with counting(store, key):
            arrays = store.load_counts(key)
            if arrays is None:
                return _count_and_store(rules, store, key, deck, progress)
    return figures(rules, CardCounts(rules.game, deck, arrays))


def _count_and_store(rules: Rules, store: CountsStore, key: str, deck: DeckSpec,
                     progress: Progress | None) -> GameAnalysis:
    arrays = _count(rules, deck, progress)
    # The counts are written while the payout pass runs (numpy writes without holding the GIL).
    failed: list[BaseException] = []

    def save() -> None:
        try:
            store.save_counts(key, arrays)
        except BaseException as error:  # re-raised below, in the caller's thread
            failed.append(error)

    saving = threading.Thread(target=save, name="save-card-counts")
    saving.start()
    try:
        analysis = figures(rules, CardCounts(rules.game, deck, arrays))
    finally:
        saving.join()
    if failed:
        raise failed[0]
    return analysis


def _count(rules: Rules, deck: DeckSpec, progress: Progress | None) -> Arrays:
    from dealerpoker.analysis.exact import (
        Solver,  # numba: only when counting (exact.py imports no user of this)
    )

    solver = Solver(deck) if progress is None else Solver(deck, progress=progress)
    return solver.card_counts(rules).arrays  # the solver's board table is freed on return


def sweep(rules: Rules, path: str, values: Sequence[Any], store: CountsStore | None = None, *,
          deck: DeckSpec = FULL_DECK) -> list[tuple[Any, GameAnalysis]]:
    """The exact analysis for each value of one rules entry (card counts shared between values)."""
    variants = [(value, with_entry(rules, path, value)) for value in values]
    cache: dict[str, Arrays] = {}

    class _Memo:
        def load_counts(self, key: str) -> Arrays | None:
            if key not in cache:
                found = store.load_counts(key) if store is not None else None
                if found is None:
                    return None
                cache[key] = found
            return cache[key]

        def save_counts(self, key: str, arrays: Arrays) -> None:
            cache[key] = arrays
            if store is not None:
                store.save_counts(key, arrays)

        def counting(self, key: str) -> AbstractContextManager[object]:
            return counting(store, key)

    memo = _Memo()
    return [(value, exact_analysis(variant, memo, deck=deck)) for value, variant in variants]
