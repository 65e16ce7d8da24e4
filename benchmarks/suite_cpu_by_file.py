"""Where a run of the test suite spends its CPU, by test file and by kind of process (issue 32).

A pytest plugin for the xdist workers, and the report of what they wrote. Each worker samples its
own CPU and that of all its descendants (Chromium and Playwright's driver, `dealerpoker serve`,
schemathesis, the operators' wallets) from `/proc` every 0.25 s, and charges each sample to the
file the worker is running (`--dist loadfile`: one file at a time). A process's CPU is read while
it lives, so Chromium's renderers, which end without being waited for by the worker, count too
(`/usr/bin/time` misses them). PostgreSQL's and Redis's own processes are not the workers'
descendants and do not count.

    PYTHONPATH=benchmarks DEALERPOKER_SUITE_CPU=/tmp/cpu make test PYTEST_ARGS="-p suite_cpu_by_file"
    .venv/bin/python benchmarks/suite_cpu_by_file.py /tmp/cpu [--top 50]
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import threading
from pathlib import Path
from typing import Any

OUT = "DEALERPOKER_SUITE_CPU"  # where each worker writes {file: {kind: seconds}}, as OUT.gwN.json
TICKS = os.sysconf("SC_CLK_TCK")
STARTUP = "(the worker's start and collection)"
KINDS = ((b"chrom", "chromium"), (b"driver/node", "driver"), (b"dealerpoker\0serve", "serve"),
         (b"schemathesis", "schemathesis"), (b"operator-demo", "wallets"), (b"hostile_wallet", "wallets"))


class Sampler:
    """The CPU of this process and its descendants, charged to ``self.file`` at each sample."""

    def __init__(self) -> None:
        self.me = os.getpid()
        self.file = STARTUP
        self.totals: dict[str, collections.defaultdict[str, float]] = {}
        self.last: dict[tuple[int, str], tuple[str, int]] = {}  # (pid, start time) -> kind, ticks
        self.lock = threading.Lock()

    def kind(self, pid: int) -> str:
        if pid == self.me:
            return "worker"
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        return next((name for marker, name in KINDS if marker in command), "other")

    def processes(self) -> list[int]:
        from tests.support.browser import _descendants  # the tests' own walk of /proc

        return [self.me, *_descendants(self.me)]

    def sample(self, *, then: str | None = None) -> None:
        """Charge what each process spent since its last sample; then run ``then``'s file."""
        with self.lock:
            charged = self.totals.setdefault(self.file, collections.defaultdict(float))
            for pid in self.processes():
                try:
                    stat = Path(f"/proc/{pid}/stat").read_text()
                    fields = stat[stat.rindex(")") + 2:].split()
                    key, ticks = (pid, fields[19]), int(fields[11]) + int(fields[12])
                    kind, before = self.last.get(key) or (self.kind(pid), 0)
                except (OSError, ValueError):
                    continue
                self.last[key] = (kind, ticks)
                charged[kind] += (ticks - before) / TICKS
            if then is not None:
                self.file = then

    def every(self, seconds: float, stop: threading.Event) -> None:
        while not stop.wait(seconds):
            self.sample()


SAMPLER: Sampler | None = None
STOP = threading.Event()


def pytest_configure(config: Any) -> None:
    global SAMPLER
    if os.environ.get("PYTEST_XDIST_WORKER") and os.environ.get(OUT):
        SAMPLER = Sampler()
        threading.Thread(target=SAMPLER.every, args=(0.25, STOP), daemon=True).start()


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    if SAMPLER is not None and SAMPLER.file != nodeid.split("::")[0]:
        SAMPLER.sample(then=nodeid.split("::")[0])


def pytest_sessionfinish(session: Any) -> None:
    if SAMPLER is None:
        return
    STOP.set()
    SAMPLER.sample()
    path = f"{os.environ[OUT]}.{os.environ['PYTEST_XDIST_WORKER']}.json"
    Path(path).write_text(json.dumps(SAMPLER.totals))


def report(prefix: str, top: int) -> str:
    files: dict[str, dict[str, float]] = collections.defaultdict(lambda: collections.defaultdict(float))
    kinds: dict[str, float] = collections.defaultdict(float)
    for path in glob.glob(f"{prefix}.gw*.json"):
        for name, spent in json.loads(Path(path).read_text()).items():
            for kind, seconds in spent.items():
                files[name][kind] += seconds
                kinds[kind] += seconds
    total = sum(kinds.values())
    lines = [f"{total:.0f} s of CPU in {len(files)} files: "
             + ", ".join(f"{kind} {seconds:.0f} s" for kind, seconds in by_size(kinds)),
             "", "| CPU s | share | running share | file | by kind (s) |", "|---|---|---|---|---|"]
    running = 0.0
    for name, spent in sorted(files.items(), key=lambda item: -sum(item[1].values()))[:top]:
        seconds = sum(spent.values())
        running += seconds
        by_kind = ", ".join(f"{kind} {value:.0f}" for kind, value in by_size(spent) if value >= 0.5)
        shares = f"{seconds / total:.1%} | {running / total:.0%}"
        lines.append(f"| {seconds:.1f} | {shares} | {name} | {by_kind} |")
    return "\n".join(lines)


def by_size(spent: dict[str, float]) -> list[tuple[str, float]]:
    return sorted(spent.items(), key=lambda item: -item[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefix", help=f"the workers' files' prefix (the run's {OUT})")
    parser.add_argument("--top", type=int, default=40)
    arguments = parser.parse_args()
    print(report(arguments.prefix, arguments.top))


if __name__ == "__main__":
    main()
