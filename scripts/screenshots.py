"""Take the README screenshots of both tables from the real page.

Starts ``dealerpoker serve`` on a free loopback port with a throw-away SQLite database, plays
rounds in Debian's Chromium (Playwright, headless) by clicking like a player, and saves the first
settled round the player wins (so the winning lines show) as ``docs/screenshots/<game>.png``.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# Opening bets (chip values clicked onto each field) and the decision taken at each step.
PLAYS = {
    "texas-bonus": ({"ante": [1000], "bonus": [500]}, ["bet", "bet", "bet"]),
    "casino-holdem": ({"ante": [1000], "aa": [500]}, ["raise"]),
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_up(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("screenshots: the server exited before answering")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("screenshots: the server did not answer within 30 s")


def play_until_a_win(page: Any, url: str, game: str, out: Path, attempts: int) -> int:
    bets, decisions = PLAYS[game]
    page.goto(f"{url}/#/play/{game}")
    page.wait_for_selector(".chip-tray .chip")
    idle = "window.dealerpokerTable && !window.dealerpokerTable.busy"
    for attempt in range(1, attempts + 1):
        for field, chips in bets.items():
            for chip in chips:
                page.click(f".chip-tray .chip[data-chip='{chip}']")
                page.click(f".spot[data-field='{field}']")
        page.click("#deal")
        page.wait_for_function(idle)
        for action in decisions:
            button = page.locator(f"#controls [data-action='{action}']")
            if button.count():
                button.click()
                page.wait_for_function(idle)
        page.wait_for_selector("#new-game")
        won = page.locator("#result").evaluate("r => r.classList.contains('is-win')")
        if won or attempt == attempts:
            page.mouse.move(0, 0)
            page.wait_for_timeout(600)  # let the dealt cards land
            page.screenshot(path=str(out / f"{game}.png"), full_page=True)
            return attempt
        page.click("#new-game")
    return attempts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--attempts", type=int, default=40, help="rounds to play looking for a win")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(f"screenshots: {CHROMIUM} is missing (make test installs Debian's chromium when root)",
              file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as scratch:
        server = subprocess.Popen(
            [str(Path(sys.executable).parent / "dealerpoker"), "serve", "--port", str(port),
             "--database", f"sqlite:///{scratch}/screenshots.db", "--log-level", "warning"])
        try:
            wait_until_up(url, server)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": args.width, "height": 900})
                for game in PLAYS:
                    rounds = play_until_a_win(page, url, game, args.out, args.attempts)
                    print(f"{args.out / (game + '.png')}: after {rounds} round(s)")
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
