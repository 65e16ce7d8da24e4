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
- **A browser page** (Chromium's CPU, all its processes, and Playwright's driver): a new context
  with a solo table page, loaded until the table is idle (waited for as the tests wait:
  `tests/support/browser.py`'s `_wait_for_function`), then closed, in a Chromium launched as
  Playwright launches it (with the tests' switches) and as the tests launch it
  (`tests/support/browser.py`: no address-bar pages for each window); and a solo Casino Hold'em
  round played on such a page (ante, deal, raise, result), with and without reduced motion; and
  one phase's layout checks at the 7 screen sizes (`tests/web/layout_support.py`) on such a page,
  drawn as it is and unpainted (transparent, as the checks look at it now).

    .venv/bin/python benchmarks/suite_costs.py [--only browser]
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.support.migrated
from _processes import THIS_CHECKOUT, checkout, cpu_seconds, free_port, head, start, tree_cpu_seconds, unpack


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


def browser_pages(folder: Path, times: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright
    from tests.support import browser

    port = free_port()
    server = start(["serve", "--port", str(port), "--database", f"sqlite:///{folder}/pages.db", "--log-level",
                    "warning", "--no-rtp"], f"http://127.0.0.1:{port}/healthz", THIS_CHECKOUT)
    table = f"http://127.0.0.1:{port}/#/play/casino-holdem"

    def idle(page: Any) -> None:  # waited for as the tests wait (in this checkout)
        browser._wait_for_function(page, "window.dealerpokerTable && !window.dealerpokerTable.busy")

    def browser_cpu() -> float:  # Chromium and Playwright's driver: this process's children but the server
        return tree_cpu_seconds(os.getpid(), reaped=True) - tree_cpu_seconds(server.pid, reaped=True)

    def chromium_ms(chromium: Any, *, round_played: bool, motion: str = "no-preference") -> list[float]:
        spent = []
        for _ in range(times + 1):
            before = browser_cpu()
            context = chromium.new_context(reduced_motion=motion)
            page = context.new_page()
            page.goto(table)
            idle(page)
            if round_played:
                page.locator('.spot[data-field="ante"]').click(position={"x": 20, "y": 40})
                page.locator("#deal").click()
                page.locator('#controls [data-action="raise"]').wait_for()
                idle(page)
                page.locator('#controls [data-action="raise"]').click()
                page.locator("#result").wait_for(state="visible")
                idle(page)
            context.close()
            time.sleep(0.3)  # the closed tab's renderer ends and is counted (reaped by Chromium)
            spent.append((browser_cpu() - before) * 1000)
        return spent[1:]  # the first: the files read into the page cache

    def looks_ms(chromium: Any, *, painted: bool) -> list[float]:
        """Chromium's CPU for one phase's layout checks at the 7 screen sizes (tests/web/
        layout_support.py), on an idle solo table page, drawn or transparent meanwhile."""
        from tests.web import layout_support

        context = chromium.new_context(viewport={"width": 1920, "height": 1080})
        page = context.new_page()
        page.goto(table)
        idle(page)
        spent = []
        for _ in range(times + 1):
            before = browser_cpu()
            if painted:
                for width, height in layout_support.VIEWPORTS:
                    page.set_viewport_size({"width": width, "height": height})
                    assert layout_support.layout_problems(page) == []
                page.set_viewport_size({"width": 1920, "height": 1080})
            else:
                assert layout_support.problems_at_every_size(page, "", "idle") == []
            spent.append((browser_cpu() - before) * 1000)
        context.close()
        return spent[1:]

    figures: dict[str, list[float]] = {}
    try:
        with sync_playwright() as playwright:
            plain = playwright.chromium.launch(executable_path=str(browser.CHROMIUM),
                                               args=browser.CHROMIUM_ARGS)
            figures["Chromium: a context and a table page, as Playwright launches it"] = \
                chromium_ms(plain, round_played=False)
            plain.close()
        with browser.chromium() as tests_own:
            figures["Chromium: a context and a table page, as the tests launch it"] = \
                chromium_ms(tests_own, round_played=False)
            for motion in ("no-preference", "reduce"):
                figures[f"Chromium: a table page and a solo round, prefers-reduced-motion {motion}"] = \
                    chromium_ms(tests_own, round_played=True, motion=motion)
            for painted, seen in ((True, "drawn"), (False, "unpainted")):
                figures[f"Chromium: a phase's layout checks at 7 sizes, the page {seen}"] = \
                    looks_ms(tests_own, painted=painted)
    finally:
        server.terminate()
        server.wait(timeout=60)
    return figures


UNITS = ("databases", "clients", "apps", "serve", "collection", "browser")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--times", type=int, default=10, help="measurements of each (default 10)")
    parser.add_argument("--only", choices=UNITS, action="append",
                        help="only these units (repeatable; default: every one)")
    arguments = parser.parse_args()
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # this process's bytecode too, as make test has it
    times = arguments.times
    with tempfile.TemporaryDirectory(prefix="dp-suite-costs-") as scratch:
        folder = Path(scratch)
        measure: dict[str, Callable[[], dict[str, list[float]]]] = {
            "databases": lambda: new_databases(folder, times), "clients": lambda: http_clients(times),
            "apps": lambda: apps(folder, times), "serve": lambda: serve_starts(folder, max(3, times // 2)),
            "collection": lambda: collections_of_the_suite(folder, 3),
            "browser": lambda: browser_pages(folder, times)}
        figures = {label: values for unit in UNITS if unit in (arguments.only or UNITS)
                   for label, values in measure[unit]().items()}
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
