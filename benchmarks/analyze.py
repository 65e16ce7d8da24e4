"""Exact analysis as a user runs it: each `dealerpoker` command in a fresh process.

    .venv/bin/python benchmarks/analyze.py [--repeat 3] [--rounds 20000000] [--no-write]

Every command runs under ``/usr/bin/time -v`` in a new process with its own empty analysis
cache directory (``DEALERPOKER_CACHE_DIR``), so the figures include start-up, imports, loading
numba's compiled code and writing the caches. Numba's on-disk compile cache is warmed by one
untimed run of everything first (a fresh checkout compiles once, see the "cold" row).
Reported per command: wall time (median of ``--repeat`` runs), CPU time (user + system, all
threads) and peak resident memory; the load average before and after; where the time of a
from-scratch `analyze` goes (stages, in a separate process); and a check that a paytable's
figures from cached card counts equal its from-scratch analysis digit for digit.
Writes the "Analysis" section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import machine, write_section

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent / "dealerpoker"
PAYTABLE = "[ante_paytable]\nflush = 1\nstraight = 3\nthree-of-a-kind = 2\n"  # moves the raise strategy
BONUS = "[[bonus_paytable]]\nname = \"Ace - Ace\"\nhands = [\"AA\"]\npays = 50\n"

STAGES = r"""
import json, sys, time
wall, cpu = time.perf_counter(), time.process_time()
marks = []
def mark(name):
    global wall, cpu
    marks.append((name, time.perf_counter() - wall, time.process_time() - cpu))
    wall, cpu = time.perf_counter(), time.process_time()
from dealerpoker.analysis.exact import Solver, _qualifier_value
from dealerpoker.analysis.paytable import figures
from dealerpoker.games.rules import load_rules
mark("imports (numpy, numba, the kernels' cached code)")
rules = load_rules(sys.argv[1]); solver = Solver()
solver.symmetry; mark("suit symmetry (canonical flops, turns, rivers)")
solver.board_table(_qualifier_value(rules)); mark("stage 1: per-board holding statistics")
counts = solver.card_counts(rules); solver.release(); mark("stage 2: up the decision tree (card counts)")
analysis = figures(rules, counts); mark("payout pass (decisions and sums, exact)")
json.dumps(analysis.to_json()); mark("JSON document")
print(json.dumps(marks))
"""


def timed(argv: list[str], cache: Path, stdin_text: str | None = None) -> dict[str, float | str]:
    """Run ``argv`` under /usr/bin/time -v; wall, CPU (user + sys) and peak RSS."""
    env = {**os.environ, "DEALERPOKER_CACHE_DIR": str(cache)}
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True, env=env,
                          input=stdin_text, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr[-2000:]}")

    def field(name: str) -> float:
        found = re.search(rf"{re.escape(name)}: ([0-9.]+)", done.stderr)
        return float(found.group(1)) if found else float("nan")

    return {"wall": wall, "cpu": field("User time (seconds)") + field("System time (seconds)"),
            "rss_mib": field("Maximum resident set size (kbytes)") / 1024, "out": done.stdout}


def median_of(runs: list[dict[str, float | str]]) -> dict[str, float]:
    return {key: statistics.median(float(r[key]) for r in runs) for key in ("wall", "cpu", "rss_mib")}


def exact_fields(document_text: str) -> dict[str, object]:
    document = json.loads(document_text)
    return {"exact": document["rules"]["exact"], "outcomes": document["outcomes"],
            "side_bets": document["side_bets"], "two_card_ev": document.get("two_card_ev")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=20_000_000)
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="dp-bench-analyze-"))
    paytable, bonus = work / "paytable.toml", work / "bonus.toml"
    paytable.write_text(PAYTABLE)
    bonus.write_text(BONUS)
    dp = [str(BIN)]
    games = ("casino-holdem", "texas-bonus")
    load_before = os.getloadavg()
    cold = [timed([*dp, "analyze", game, "--no-cache", "--json"], work / "warmup") for game in games]
    rows: list[tuple[str, dict[str, float]]] = []
    scratch: dict[str, list[dict[str, float | str]]] = {game: [] for game in games}
    for i in range(args.repeat):
        for game in games:
            scratch[game].append(timed([*dp, "analyze", game, "--no-cache", "--json"], work / f"s{i}"))
    for game in games:
        rows.append((f"`dealerpoker analyze {game} --no-cache --json`", median_of(scratch[game])))
    both = [float(scratch["casino-holdem"][i]["wall"]) + float(scratch["texas-bonus"][i]["wall"])
            for i in range(args.repeat)]
    # A new paytable, card counts cached (by the from-scratch runs into s0): the payout pass alone.
    counts_dir = work / "s0"
    reuse = {"casino-holdem": (paytable, [], "ante paytable: flush 1, straight 3, trips 2"),
             "texas-bonus": (bonus, [], "Bonus paytable: A-A pays 50")}
    identical = {}
    for game, (rules_file, runs, _) in reuse.items():
        for _ in range(args.repeat):
            for stale in counts_dir.glob(f"{game}-*.json"):  # drop the result cache, keep the counts
                stale.unlink()
            runs.append(timed([*dp, "analyze", game, "--rules", str(rules_file), "--json"], counts_dir))
        fresh = timed([*dp, "analyze", game, "--rules", str(rules_file), "--no-cache", "--json"],
                      work / f"fresh-{game}")
        identical[game] = exact_fields(str(runs[0]["out"])) == exact_fields(str(fresh["out"]))
    for game, (rules_file, runs, label) in reuse.items():
        rows.append((f"`dealerpoker analyze {game} --rules {rules_file.name} --json` ({label}; "
                     "card counts cached)", median_of(runs)))
    sweep_runs = [timed([*dp, "analyze", "casino-holdem", "--sweep", "ante_paytable.flush=1..3"], counts_dir)
                  for _ in range(args.repeat)]
    rows.append(('`dealerpoker analyze casino-holdem --sweep "ante_paytable.flush=1..3"`',
                 median_of(sweep_runs)))
    small = [
        ("`dealerpoker --help`", [*dp, "--help"]),
        ("`dealerpoker settle texas-bonus ... --actions bet,check,bet`",
         [*dp, "settle", "texas-bonus", "--player", "As Kd", "--dealer", "Qh Qc", "--board",
          "2c 7d 9h Js 3s", "--bet", "ante=100", "--bet", "bonus=100", "--actions", "bet,check,bet"]),
        ("`dealerpoker advise casino-holdem --player \"As Kd\" --board \"2c 7d 9h\"`",
         [*dp, "advise", "casino-holdem", "--player", "As Kd", "--board", "2c 7d 9h"]),
        ("`dealerpoker advise texas-bonus --player \"As Kd\" --board \"2c 7d 9h Js\"`",
         [*dp, "advise", "texas-bonus", "--player", "As Kd", "--board", "2c 7d 9h Js"]),
        ("`dealerpoker advise texas-bonus --player \"As Kd\"` (pre-flop: the analysis' table, cached)",
         [*dp, "advise", "texas-bonus", "--player", "As Kd"]),
        ("`dealerpoker simulate texas-bonus --rounds 1` (tables cached: the time to a first round)",
         [*dp, "simulate", "texas-bonus", "--rounds", "1"]),
        ("`dealerpoker simulate casino-holdem --rounds 1` (tables cached: the time to a first round)",
         [*dp, "simulate", "casino-holdem", "--rounds", "1"]),
        ("`dealerpoker simulate texas-bonus --rounds 1000` (tables cached)",
         [*dp, "simulate", "texas-bonus", "--rounds", "1000"]),
        ("`dealerpoker simulate casino-holdem --rounds 1000` (tables cached)",
         [*dp, "simulate", "casino-holdem", "--rounds", "1000"]),
    ]
    for label, argv in small:
        timed(argv, counts_dir)  # caches as a user has them after a first run
        rows.append((label, median_of([timed(argv, counts_dir) for _ in range(max(5, args.repeat))])))
    first_sim = timed([*dp, "simulate", "texas-bonus", "--rounds", "1000"], work / "first-simulate")
    rows.append(("`dealerpoker simulate texas-bonus --rounds 1000`, first run (nothing cached: it "
                 "analyses first)", median_of([first_sim])))
    rate = {}
    for game in games:
        run = timed([*dp, "simulate", game, "--rounds", str(args.rounds), "--seed", "1"], counts_dir)
        rate[game] = (args.rounds / float(run["wall"]), args.rounds / float(run["cpu"]))
    stages = {}
    for game in games:
        done = subprocess.run([sys.executable, "-c", STAGES, game], capture_output=True, text=True,
                              check=True, env={**os.environ, "DEALERPOKER_CACHE_DIR": str(work / "st")})
        stages[game] = json.loads(done.stdout.strip().splitlines()[-1])
    load_after = os.getloadavg()

    def loads(values: tuple[float, float, float]) -> str:
        return ", ".join(f"{v:.1f}" for v in values)

    body = [
        f"Measured {machine()} with `.venv/bin/python benchmarks/analyze.py --repeat {args.repeat} "
        f"--rounds {args.rounds}`. Load average {loads(load_before)} before, {loads(load_after)} after "
        "(2 cores: above ~2 other work competed for them, and wall times are pessimistic; CPU time is "
        "user + system over all threads). Each command is a fresh process (`/usr/bin/time -v`), numba's "
        "compile cache warm; wall is the median of the runs.",
        "",
        "| command | wall | CPU | peak RSS |",
        "|---|---:|---:|---:|",
    ]
    body += [f"| {label} | {m['wall']:.2f} s | {m['cpu']:.2f} s | {m['rss_mib']:,.0f} MiB |"
             for label, m in rows]
    body += [
        "",
        f"Both from-scratch commands together: {statistics.median(both):.1f} s wall (median of "
        f"{args.repeat} pairs; target 10 s). First runs in this checkout before the timed ones (numba "
        f"cache as found): casino {float(cold[0]['wall']):.1f} s, texas {float(cold[1]['wall']):.1f} s.",
        f"Figures from cached card counts identical to the from-scratch analysis of the same rules "
        f"file (every exact field, the return table, the side bets, the starting hands): "
        f"casino-holdem {'yes' if identical['casino-holdem'] else 'NO'}, "
        f"texas-bonus {'yes' if identical['texas-bonus'] else 'NO'}.",
        "",
        "Simulation with the optimal strategy, " + "; ".join(
            f"{g}: {w / 1e6:.2f} M rounds/s wall, {c / 1e6:.2f} M per CPU-second"
            for g, (w, c) in rate.items()) + ".",
        "",
        "Where a from-scratch `analyze` spends its time (one process per game, in-process marks):",
        "",
        "| stage | casino-holdem wall | CPU | texas-bonus wall | CPU |",
        "|---|---:|---:|---:|---:|",
    ]
    for (name, cw, cc), (_, tw, tc) in zip(stages["casino-holdem"], stages["texas-bonus"], strict=True):
        body.append(f"| {name} | {cw:.2f} s | {cc:.2f} s | {tw:.2f} s | {tc:.2f} s |")
    text = "\n".join(body)
    print(text)
    if not args.no_write:
        write_section("Analysis", text)


if __name__ == "__main__":
    main()
