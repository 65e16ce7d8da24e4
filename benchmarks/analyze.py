"""Exact analysis: full `analyze` of both games from scratch, advise latency, simulate speed.

    .venv/bin/python benchmarks/analyze.py [--rounds 20000000]

No result cache is read or written. The first full run in this fresh process is the "cold"
figure (numba's on-disk compile cache as found: cold on a first checkout, warm afterwards);
the second run is the steady figure. Both games share one `Solver` (suit symmetry and the
per-board table are built once), as `analyze` of both games would on one machine.
Writes the "Analysis" section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

from _results import machine, write_section
from dealerpoker.analysis.advise import advise
from dealerpoker.analysis.exact import Solver
from dealerpoker.analysis.rtp import solver_tables
from dealerpoker.analysis.simulate import simulate
from dealerpoker.cards import parse_cards
from dealerpoker.games.rules import load_rules


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def full_run() -> tuple[float, float, dict[str, object]]:
    started, cpu = time.perf_counter(), cpu_seconds()
    solver = Solver()
    casino = solver.casino(load_rules("casino-holdem"))
    texas = solver.texas(load_rules("texas-bonus"))
    elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu
    tables = {"texas-bonus": solver_tables(solver, texas.tables),
              "casino-holdem": solver_tables(solver, casino.tables)}
    return elapsed, cpu, {"texas": texas, "casino": casino, "tables": tables}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20_000_000)
    args = parser.parse_args()
    cold, cold_cpu, _ = full_run()
    warm, warm_cpu, result = full_run()
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    texas, casino = result["texas"], result["casino"]

    def latency(rules_game: str, player: str, board: str) -> float:
        rules = load_rules(rules_game)
        advise(rules, parse_cards(player), parse_cards(board))
        times = []
        for _ in range(7):
            started = time.perf_counter()
            advise(rules, parse_cards(player), parse_cards(board))
            times.append(time.perf_counter() - started)
        return statistics.median(times) * 1000

    advise_rows = [("casino-holdem", "As Kd", "2c 7d 9h"), ("texas-bonus", "As Kd", "2c 7d 9h"),
                   ("texas-bonus", "As Kd", "2c 7d 9h Js")]
    lat = [(g, p, b, latency(g, p, b)) for g, p, b in advise_rows]
    speeds = []
    for game in ("texas-bonus", "casino-holdem"):
        rules = load_rules(game)
        tables = result["tables"][game]
        simulate(rules, 1_000_000, tables=tables)  # compile / warm
        started, cpu = time.perf_counter(), cpu_seconds()
        simulate(rules, args.rounds, seed=1, tables=tables)
        wall, cpu = time.perf_counter() - started, cpu_seconds() - cpu
        speeds.append((game, args.rounds / wall, args.rounds / cpu))
    body = [
        f"Measured {machine()} with `.venv/bin/python benchmarks/analyze.py --rounds {args.rounds}`.",
        "The machine was shared with several other helpers' builds and tests while this ran, so "
        "every figure here is pessimistic. The CPU-time rows show how much of the two cores the "
        "process actually got: wall time well above CPU time / 2 means it waited for the CPU.",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| full analyze, both games, first run in a fresh process (cold), wall | {cold:.1f} s |",
        f"| same, CPU time of the process (both cores together) | {cold_cpu:.1f} s |",
        f"| full analyze, both games, second run (steady), wall | {warm:.1f} s |",
        f"| same, CPU time of the process (both cores together) | {warm_cpu:.1f} s |",
        f"| peak resident memory of the process | {peak_mib:,.0f} MiB |",
    ]
    body += [f"| advise {g} `{p}` / `{b}` (median of 7) | {ms:.1f} ms |" for g, p, b, ms in lat]
    body += [f"| simulate {g}, optimal strategy, wall | {rate / 1e6:.2f} M rounds/s |"
             for g, rate, _ in speeds]
    body += [f"| simulate {g}, rounds per CPU-second (one core's worth) | {c / 1e6:.2f} M |"
             for g, _, c in speeds]
    body += ["", "Exact results (default rules, optimal strategy, per unit ante):", "",
             "| game | house edge | element of risk | play frequency | std dev |",
             "|---|---:|---:|---:|---:|"]
    for a in (texas, casino):
        body.append(f"| {a.game} | {float(a.house_edge):.4%} | {float(a.element_of_risk):.4%} | "
                    f"{float(a.play_frequency):.4%} | {a.std_dev:.4f} |")
    write_section("Analysis", "\n".join(body))
    print("\n".join(body))


if __name__ == "__main__":
    main()
