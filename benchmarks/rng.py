"""RNG quality over >= 1,000,000 fair deals: chi-square p-values into benchmarks/RESULTS.md ("RNG").

    .venv/bin/python benchmarks/rng.py [--deals 1000000] [--workers N]

Each deal is a full ``deck_order`` (HMAC-SHA256 stream + unbiased Fisher-Yates), with a new
server seed every 1,000 nonces (seeds derived from the deal number, so a run is reproducible).
Checks: card x position (52x52), first card (52), ordered first pair (2,652). A check fails at
p < 0.001 (``dealerpoker.fairness.stats.REJECT_BELOW``); the script exits 1 if any fails.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from _results import machine, write_section
from dealerpoker.fairness import deck_order
from dealerpoker.fairness.stats import (
    REJECT_BELOW,
    ShuffleCounts,
    first_card_test,
    first_pair_test,
    position_test,
    shuffle_counts,
)

CHUNK = 10_000
NONCES_PER_SEED = 1_000


def count_chunk(start: int) -> ShuffleCounts:
    decks = []
    for deal in range(start, start + CHUNK):
        seed = hashlib.sha256(f"rng-benchmark:{deal // NONCES_PER_SEED}".encode()).hexdigest()
        decks.append(deck_order(seed, "rng-benchmark", deal % NONCES_PER_SEED))
    return shuffle_counts(decks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    args = parser.parse_args()
    chunks = range(0, max(args.deals, CHUNK) // CHUNK * CHUNK, CHUNK)
    began = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        parts = list(pool.map(count_chunk, chunks))
    elapsed = time.perf_counter() - began
    counts = parts[0]
    for part in parts[1:]:
        counts = counts + part
    results = [position_test(counts), first_card_test(counts), first_pair_test(counts)]
    lines = [
        f"Measured {machine()} (a 2-core machine shared with other builds: timings are pessimistic).",
        "",
        f"`python benchmarks/rng.py --deals {counts.decks} --workers {args.workers}`: {counts.decks:,} "
        f"shuffles (`hmac-sha256-fy-v1`) in {elapsed:.1f} s = {counts.decks / elapsed:,.0f} decks/s.",
        f"A check fails when p < {REJECT_BELOW}.",
        "",
        "| check | cells | df | chi-square | p-value | verdict |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for result in results:
        verdict = "pass" if result.passed else "FAIL"
        lines.append(
            f"| {result.name} | {result.cells:,} | {result.df:,} | {result.statistic:,.1f} "
            f"| {result.p_value:.4f} | {verdict} |"
        )
    for result in results:
        print(result.describe())
    print(f"{counts.decks / elapsed:,.0f} decks/s")
    if not args.no_write:
        write_section("RNG", "\n".join(lines))
    return 0 if all(result.passed for result in results) else 1


if __name__ == "__main__":
    sys.exit(main())
