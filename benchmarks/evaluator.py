"""Hand evaluators on the same random 7-card hands: dealerpoker (batch, scalar) and the PyPI peers.

    .venv/bin/python benchmarks/evaluator.py [--hands 10000000] [--scalar-hands 200000]

Times, in one run on the same hands (each peer gets them in its own native card form, converted
before the clock starts): dealerpoker's ``evaluate_batch`` (one thread), its numba kernel alone,
its scalar ``evaluate``, and treys, phevaluator, eval7 and pokerkit (whichever import), plus the
exhaustive enumeration of all 133,784,560 seven-card hands with category counts. Each figure is
the best of a few repeats, as wall-clock time and as this process's CPU time (on a shared, loaded
machine the CPU time is what the code costs; on an idle machine the two agree). Writes the
"Evaluator" section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import time
from collections import deque
from collections.abc import Callable

import numba
import numpy as np
import numpy.typing as npt

from _results import machine, write_section
from dealerpoker.cards.encoding import indices_to_cards
from dealerpoker.evaluator import evaluate, evaluate_batch, kernels, value_of
from dealerpoker.evaluator.exhaustive import count_categories

Row = tuple[str, str, int, float, float]


def random_hands(n: int, seed: int) -> npt.NDArray[np.int8]:
    """``n`` uniformly random 7-card hands as card indices (sequential draws without repeats)."""
    rng = np.random.default_rng(seed)
    hands = np.empty((n, 7), dtype=np.int64)
    for j in range(7):
        card = rng.integers(0, 52 - j, n)
        for drawn in np.sort(hands[:, :j], axis=1).T:
            card += card >= drawn
        hands[:, j] = card
    return hands.astype(np.int8)


def best_time(run: Callable[[], object], repeats: int) -> tuple[float, float]:
    """The best wall-clock and the best CPU time of ``repeats`` runs."""
    wall, cpu = float("inf"), float("inf")
    for _ in range(repeats):
        started_wall, started_cpu = time.perf_counter(), time.process_time()
        run()
        wall = min(wall, time.perf_counter() - started_wall)
        cpu = min(cpu, time.process_time() - started_cpu)
    return wall, cpu


def measure(name: str, api: str, n: int, run: Callable[[], object], repeats: int = 3) -> Row:
    run()  # warm-up (compilation, caches)
    wall, cpu = best_time(run, repeats)
    row = (name, api, n, n / wall, n / cpu)
    print(f"{name:12} {api:44} {n:>11,} {row[3]:>15,.0f}/s wall {row[4]:>15,.0f}/s CPU")
    return row


def peers(texts: list[list[str]], indices: list[list[int]]) -> list[Row]:
    rows: list[Row] = []
    n = len(indices)
    try:
        from phevaluator.evaluator import evaluate_7cards

        rows.append(
            measure(
                "phevaluator",
                "`evaluate_7cards(*ints)`",
                n,
                lambda: deque((evaluate_7cards(*hand) for hand in indices), maxlen=0),
            )
        )
    except ImportError:
        print("phevaluator not installed")
    try:
        import eval7

        hands7 = [[eval7.Card(card) for card in hand] for hand in texts]
        rows.append(
            measure(
                "eval7", "`evaluate([Card] * 7)`", n, lambda: deque(map(eval7.evaluate, hands7), maxlen=0)
            )
        )
    except ImportError:
        print("eval7 not installed")
    try:
        from treys import Card as TreysCard
        from treys import Evaluator

        evaluator = Evaluator()
        treys_hands = [[TreysCard.new(card) for card in hand] for hand in texts]
        rows.append(
            measure(
                "treys",
                "`Evaluator().evaluate(board5, hole2)`",
                n,
                lambda: deque((evaluator.evaluate(h[:5], h[5:]) for h in treys_hands), maxlen=0),
            )
        )
    except ImportError:
        print("treys not installed")
    try:
        from pokerkit import StandardHighHand

        few = [("".join(h[:2]), "".join(h[2:])) for h in texts[: max(1, n // 20)]]
        rows.append(
            measure(
                "pokerkit",
                "`StandardHighHand.from_game(hole, board)`",
                len(few),
                lambda: deque((StandardHighHand.from_game(hole, board) for hole, board in few), maxlen=0),
                1,
            )
        )
    except ImportError:
        print("pokerkit not installed")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000_000)
    parser.add_argument("--scalar-hands", type=int, default=200_000)
    args = parser.parse_args()
    numba.set_num_threads(1)  # the kernels are serial anyway; this pins the one-thread figure
    hands = random_hands(args.hands, seed=2026)
    out = np.empty(len(hands), dtype=np.int32)
    rows = [
        measure(
            "dealerpoker",
            "`evaluate_batch(int8 (n, 7))`, validated",
            len(hands),
            lambda: evaluate_batch(hands),
        ),
        measure(
            "dealerpoker",
            "numba kernel `eval_rows` (no validation)",
            len(hands),
            lambda: kernels.eval_rows(hands, out),
        ),
    ]
    small = hands[: args.scalar_hands]
    indices = small.tolist()
    cards = [indices_to_cards(hand) for hand in indices]
    texts = [[str(card) for card in hand] for hand in cards]
    rows.append(
        measure(
            "dealerpoker",
            "`evaluate(ints)` (scalar)",
            len(indices),
            lambda: deque(map(evaluate, indices), maxlen=0),
        )
    )
    rows.append(
        measure(
            "dealerpoker",
            "`value_of(ints)` (scalar, int only)",
            len(indices),
            lambda: deque(map(value_of, indices), maxlen=0),
        )
    )
    rows.append(
        measure(
            "dealerpoker",
            "`evaluate(Cards)` (scalar)",
            len(cards),
            lambda: deque(map(evaluate, cards), maxlen=0),
        )
    )
    rows += peers(texts, indices)
    count_categories(7)  # warm-up
    enum_wall, enum_cpu = best_time(lambda: count_categories(7), 3)
    print(f"exhaustive 7-card enumeration: {enum_wall:.3f} s wall, {enum_cpu:.3f} s CPU")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    rate = {(name, api): (wall, cpu) for name, api, _, wall, cpu in rows}
    batch = rate[rows[0][0], rows[0][1]]
    scalar = rate["dealerpoker", "`value_of(ints)` (scalar, int only)"]
    peer = rate.get(("phevaluator", "`evaluate_7cards(*ints)`"))

    def verdict(wall_ok: bool, cpu_ok: bool) -> str:
        if wall_ok and cpu_ok:
            return "met"
        return "met in CPU time only" if cpu_ok else "missed" if not wall_ok else "met in wall time only"

    targets = [
        "| target | measured (wall / CPU time) | verdict |",
        "|---|---|---|",
        f"| batch >= 80,000,000 random 7-card evaluations/s | {batch[0]:,.0f} / {batch[1]:,.0f} /s"
        f" | {verdict(batch[0] >= 80e6, batch[1] >= 80e6)} |",
        f"| exhaustive 7-card enumeration <= 1 s | {enum_wall:.3f} s / {enum_cpu:.3f} s"
        f" | {verdict(enum_wall <= 1, enum_cpu <= 1)} |",
    ]
    if peer:
        targets.append(
            f"| scalar >= phevaluator `evaluate_7cards` | `value_of`: {scalar[0] / peer[0]:.2f}x /"
            f" {scalar[1] / peer[1]:.2f}x phevaluator"
            f" | {verdict(scalar[0] >= peer[0], scalar[1] >= peer[1])} |"
        )
    table = [
        "| evaluator | API | hands | evaluations/s (wall) | evaluations/s (CPU time) |",
        "|---|---|---:|---:|---:|",
    ]
    table += [f"| {a} | {b} | {n:,} | {w:,.0f} | {c:,.0f} |" for a, b, n, w, c in rows]
    body = "\n".join(
        [
            f"Measured {machine()} with `.venv/bin/python benchmarks/evaluator.py --hands {args.hands}"
            f" --scalar-hands {args.scalar_hands}`; numba {numba.__version__}, one thread; load average"
            f" at the end {load} (a 2-core machine shared with other helpers' builds and tests: the wall"
            " figures are pessimistic; the CPU-time figures count only this process's own time).",
            "",
            "Same uniformly random 7-card hands for everyone (pokerkit: the first 5% of them), each in",
            "the evaluator's own card form, converted before timing; results are dropped as they come",
            "(`deque(..., maxlen=0)`); best of 3 runs (pokerkit: 1) after a warm-up. `evaluate_batch`",
            "includes its validation (dtype, shape, range, repeated cards); the kernel row does not.",
            "",
            *table,
            "",
            f"Exhaustive enumeration of all 133,784,560 seven-card hands with category counts"
            f" (`count_categories(7)`, one thread): {enum_wall:.3f} s wall, {enum_cpu:.3f} s CPU time.",
            "",
            *targets,
        ]
    )
    write_section("Evaluator", body)


if __name__ == "__main__":
    main()
