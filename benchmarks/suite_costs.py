"""What the test suite pays again and again: the unit costs behind `make test`'s time (issue 32).

The full suite starts about 100 `dealerpoker serve` processes, builds hundreds of apps in its
worker processes, and gives each a new database. This times each of those units on its own:

- **A new SQLite database**: Alembic's migrations step by step (what `serve` and a deployment do)
  against the tests' copy of what they made (`tests/support/migrated.py`), CPU per database.
- **An app**: `create_app`, its start, its first answer (`/healthz`, which builds the middleware
  stack) and its stop, on a new SQLite database, as the tests build one (the schema copied), CPU
  per app.
- **An httpx client**, as `httpx.post(...)` builds one (a TLS context of its own, certifi's CA
  bundle loaded) and with the tests' shared context (`tests/support/tls.py`).
- **A `serve` process**: CPU until `/healthz` answers, on a new SQLite database, with the
  package's bytecode already written (what `make test` keeps) and with none written
  (`PYTHONDONTWRITEBYTECODE=1` on a fresh clone: every module compiled in every process).
- **Collecting the suite** (`pytest --collect-only`, what each xdist worker does first) in a
  copy of this commit, with no bytecode written and with the bytecode of a first collection.

    .venv/bin/python benchmarks/suite_costs.py
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support.migrated
from _processes import THIS_CHECKOUT, checkout, cpu_seconds, free_port, head, start, unpack


def _cpu_ms(work: Callable[[], None], times: int) -> list[float]:
    spent = []
    for _ in range(times):
        began = time.process_time()
        work()
        spent.append((time.process_time() - began) * 1000)
    return spent


def new_databases(folder: Path, times: int) -> dict[str, list[float]]:
    from tests.support import migrated

    from dealerpoker.server.db import Database

    count = itertools.count()

    def one() -> None:
        async def run() -> None:
            database = Database(f"sqlite:///{folder / f'db{next(count)}.db'}")
            await database.migrate()
            await database.dispose()
        asyncio.run(run())

    one()  # Alembic and the drivers imported
    step_by_step = _cpu_ms(one, times)
    migrated.install()
    one()  # the copy made once
    return {"new SQLite database, migrated step by step": step_by_step,
            "new SQLite database, the tests' copy": _cpu_ms(one, times)}


def apps(folder: Path, times: int) -> dict[str, list[float]]:
    import httpx
    from tests.support import tls

    from dealerpoker.server import Settings, create_app

    tls.install()  # the client's own cost is the next unit's
    count = itertools.count()

    def one() -> None:
        app = create_app(Settings(database_url=f"sqlite:///{folder / f'app{next(count)}.db'}"))

        async def run() -> None:
            async with app.router.lifespan_context(app), httpx.AsyncClient(
                    transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
                assert (await http.get("/healthz")).status_code == 200
        asyncio.run(run())

    one()
    return {"create_app, started, first answer (/healthz), stopped": _cpu_ms(one, times)}


def http_clients(times: int) -> dict[str, list[float]]:
    import httpx
    from tests.support import tls

    def one() -> None:
        httpx.Client().close()

    tls.BUILD()  # certifi found and read once
    httpx_own = _cpu_ms(one, times)
    tls.install()
    one()
    return {"httpx client, its own TLS context (httpx.post)": httpx_own,
            "httpx client, the tests' shared TLS context": _cpu_ms(one, times)}


def serve_starts(folder: Path, times: int) -> dict[str, list[float]]:
    fresh = checkout("HEAD", Path(tempfile.mkdtemp(dir=folder)))  # a src tree with no bytecode
    kinds = {"serve until /healthz, bytecode kept": (THIS_CHECKOUT, {"PYTHONDONTWRITEBYTECODE": ""}),
             "serve until /healthz, no bytecode (PYTHONDONTWRITEBYTECODE=1, fresh clone)":
                 (fresh, {"PYTHONDONTWRITEBYTECODE": "1"})}
    figures: dict[str, list[float]] = {label: [] for label in kinds}
    for number in range(times + 1):
        for label, (code, environment) in kinds.items():
            port = free_port()
            process = start(["serve", "--port", str(port), "--database", f"sqlite:///{folder}/s{number}{port}.db",
                             "--log-level", "warning", "--no-rtp"], f"http://127.0.0.1:{port}/healthz", code,
                            environment=environment)
            spent = cpu_seconds([process.pid])
            process.terminate()
            process.wait(timeout=60)
            if number:  # the first of each: the files read into the page cache
                figures[label].append(spent * 1000)
    return figures


def collections_of_the_suite(folder: Path, times: int) -> dict[str, list[float]]:
    copy = Path(tempfile.mkdtemp(dir=folder))
    unpack("HEAD", copy)

    def collect(environment: dict[str, str]) -> float:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                       cwd=copy, env={**os.environ, "PYTHONPATH": str(copy / "src"), **environment},
                       check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000

    none = [collect({"PYTHONDONTWRITEBYTECODE": "1"}) for _ in range(times)]
    collect({})  # writes the bytecode
    return {"pytest --collect-only, no bytecode (fresh clone, PYTHONDONTWRITEBYTECODE=1)": none,
            "pytest --collect-only, bytecode kept": [collect({}) for _ in range(times)]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--times", type=int, default=10, help="measurements of each (default 10)")
    arguments = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # this process's bytecode too, as make test has it
    with tempfile.TemporaryDirectory(prefix="dp-suite-costs-") as scratch:
        folder = Path(scratch)
        figures = {**new_databases(folder, arguments.times), **http_clients(arguments.times),
                   **apps(folder, arguments.times),
                   **serve_starts(folder, max(3, arguments.times // 2)),
                   **collections_of_the_suite(folder, 3)}
    machine = platform.processor() or platform.machine()
    print(f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {head()}; nproc {os.cpu_count()}; {machine}; "
          f"Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f}. "
          "CPU time, median (min-max).\n")
    print("| unit | CPU ms | measured |")
    print("|---|---|---|")
    for label, values in figures.items():
        spread = f"{statistics.median(values):,.1f} ({min(values):,.1f}-{max(values):,.1f})"
        print(f"| {label} | {spread} | {len(values)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
