"""Debian's Chromium driven by Playwright (never a downloaded browser), for the browser tests of
tests/web and tests/live; without the browser or the package the tests skip and say why."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from tests.support.waiting import POLL_INTERVAL, WAIT, until

T = TypeVar("T")

CHROMIUM = Path("/usr/bin/chromium")
# The five screens a player's page is tested at: ((width, height), touch), laptop, desktop, two phones
# upright and a phone on its side (a finger on the phones); PLAYER_SCREEN_IDS names them.
PLAYER_SCREENS = [((1366, 768), False), ((1920, 1080), False), ((390, 844), True), ((375, 667), True),
                  ((844, 390), True)]
PLAYER_SCREEN_IDS = ["laptop", "desktop", "phone", "small-phone", "phone-landscape"]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
# Chromium's address-bar dropdown, built as two WebUI pages for every window (each Playwright
# context is a window; headless, nobody ever sees it): 0.6 s of Chromium's CPU per context, half of
# what opening a table page costs (benchmarks/RESULTS.md, issue 32). Nothing of our pages uses it.
UNSEEN_FEATURES = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup"]
# Every page of the tests is drawn transparent: a style sheet, added before the page's own scripts
# run, sets the root's opacity to 0. No box moves, clicks land where they did, Playwright's
# visibility ignores opacity, and no check reads pixels; but Chromium then paints and rasterizes
# nothing, which was most of its CPU in a round (benchmarks/RESULTS.md, issue 32). A screenshot,
# for a person, is taken with the page painted (``_painted``).
UNPAINTED = """(() => {
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(':root { opacity: 0 !important; }');
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  window[Symbol.for('dealerpoker.tests.unpainted')] = sheet;
})()"""
PAINTED = """painted => {
  const sheet = window[Symbol.for('dealerpoker.tests.unpainted')];
  if (sheet) sheet.disabled = painted;
}"""
# What Playwright says of a look into a page that navigated meanwhile.
NAVIGATED = "Execution context was destroyed"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


# How long one look inside the page may wait (a navigation, a hidden page's slowed timers, or the
# test's deadline are seen between two) and how often it looks meanwhile.
IN_PAGE_SLICE_MS = 2_000
IN_PAGE_POLL_MS = 20


def _wait_for_function(page: Any, expression: str, *, arg: Any = None, timeout: float | None = None,
                       polling: Any = None) -> Any:
    """``Page.wait_for_function``, waiting inside the page: Playwright's own evaluates the
    predicate with ``eval`` in the page, which the server's Content-Security-Policy
    (``script-src 'self'``, no ``'unsafe-eval'``) refuses; ``evaluate`` goes through the
    DevTools protocol, outside the page's policy, so the pages are tested under their real CSP.
    The expression is written into a function that looks at it every ``IN_PAGE_POLL_MS`` for up
    to ``IN_PAGE_SLICE_MS`` before it answers: one round trip through Playwright's driver per
    slice, not per look (a look from here cost the driver and this process about 1 ms of CPU each,
    half the driver's CPU in a solo round; benchmarks/RESULTS.md, issue 32). As with Playwright's,
    the value is the expression's first truthy one (JavaScript's truth), the expression may be a
    function (called with ``arg``), and the wait outlasts a navigation: a look that meets one (a
    frame going from ``about:blank`` to its ``src``) counts as "not yet"."""
    import time

    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    look = _looking_in_page(expression)
    deadline = time.monotonic() + (30_000 if timeout is None else timeout) / 1000
    while True:
        left_ms = max(0.0, (deadline - time.monotonic()) * 1000)
        try:
            found = page.evaluate(look, [arg, min(IN_PAGE_SLICE_MS, left_ms)])
        except PlaywrightError as error:
            if NAVIGATED not in error.message:
                raise
            found = None
            page.wait_for_timeout(IN_PAGE_POLL_MS)  # the next document is on its way: poll until the deadline
        if found is not None:
            return found["value"]
        if time.monotonic() >= deadline:
            raise PlaywrightTimeoutError(f"wait_for_function: {expression!r} not true within the timeout")


def _looking_in_page(expression: str) -> str:
    """A function of ``[arg, milliseconds]`` that answers ``{value}`` once ``expression`` (or its
    value called with ``arg``, if that is a function) is truthy, or null when the time is up. The
    expression is written in as source (the line break ends a trailing ``//`` comment)."""
    return f"""async ([arg, milliseconds]) => {{
  const look = () => {{ const found = ({expression}
    ); return typeof found === "function" ? found(arg) : found; }};
  const until = performance.now() + milliseconds;
  for (;;) {{
    const value = await look();
    if (value) return {{ value }};
    if (performance.now() >= until) return null;
    await new Promise((resolve) => setTimeout(resolve, {IN_PAGE_POLL_MS}));
  }}
}}"""


def until_delivered(page: Any, condition: Callable[[], T], what: str, *, timeout: float = WAIT) -> T:
    """``tests/support/waiting.until`` for a condition on what Playwright's event handlers record
    (frames, requests): between two looks the page waits a moment, which is when Playwright's sync
    API delivers events (a plain sleep would deliver none)."""

    def seen() -> T | None:
        return condition() or page.wait_for_timeout(POLL_INTERVAL * 1000)  # poll: events come now

    return until(seen, what, timeout=timeout, interval=0)  # type: ignore[return-value]


def open_lobby(page: Any, url: str) -> Any:
    """The lobby at ``url``, once every section is in (its list's ``aria-busy`` turns false): the
    sections load side by side, and a count taken before the last arrives would miss its tables."""
    page.goto(url)
    page.locator(".lobby__sections[aria-busy='false']").wait_for()
    return page.locator(".lobby__table")


def press(locator: Any, touch: bool) -> None:
    """A finger's tap on a touch screen, a click elsewhere."""
    if touch:
        locator.tap()
    else:
        locator.click()


@contextmanager
def laptop_page(browser: Any, *, timeout_ms: float) -> Iterator[Any]:
    """A page at 1366x768 in a context of its own, closed after use; the page's script errors, if
    any, fail the test once it is done."""
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    opened = context.new_page()
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.set_default_timeout(timeout_ms)
    try:
        yield opened
    finally:
        context.close()
    assert not errors, errors


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright ``Browser``), or a skip naming what is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests: {CHROMIUM} is missing (make test installs Debian's chromium when root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests: the playwright package is not installed (pip install -e '.[test]')")
    from playwright.sync_api import Frame, Page

    Page.wait_for_function = _wait_for_function  # type: ignore[method-assign,assignment]
    Frame.wait_for_function = _wait_for_function  # type: ignore[method-assign,assignment]
    _draw_pages_transparent()
    with sync_playwright() as playwright:
        args = [*CHROMIUM_ARGS, f"--disable-features={','.join(_features_to_disable(playwright))}"]
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args, headless=True)
        try:
            yield browser
        finally:
            browser.close()


_unpainted_page_screenshot: Callable[..., bytes] | None = None  # Playwright's own, once replaced


def _draw_pages_transparent() -> None:
    """Every new context's pages unpainted (``UNPAINTED``), every screenshot painted. The context is
    patched where Playwright makes it (its ``_impl``), which ``Browser.new_page`` goes through too,
    keeping that page's ownership of its context (closing the page closes it)."""
    global _unpainted_page_screenshot
    from playwright._impl.browser import Browser as BrowserImplementation
    from playwright.sync_api import ElementHandle, Locator, Page

    if _unpainted_page_screenshot is not None:
        return
    _unpainted_page_screenshot = Page.screenshot
    opening = BrowserImplementation.new_context

    async def new_context(self: Any, *args: Any, **kwargs: Any) -> Any:
        context = await opening(self, *args, **kwargs)
        await context.add_init_script(script=UNPAINTED, path=None)
        return context

    BrowserImplementation.new_context = new_context  # type: ignore[method-assign]
    for kind, page_of in ((Page, lambda shot: shot), (Locator, lambda shot: shot.page),
                          (ElementHandle, lambda shot: shot.owner_frame().page)):
        kind.screenshot = _painted(kind.screenshot, page_of)  # type: ignore[method-assign]


def _painted(screenshot: Callable[..., bytes], page_of: Callable[[Any], Any]) -> Callable[..., bytes]:
    def painted_screenshot(self: Any, *args: Any, **kwargs: Any) -> bytes:
        frames = page_of(self).frames
        _paint(frames, True)
        try:
            return screenshot(self, *args, **kwargs)
        finally:
            _paint(frames, False)

    return painted_screenshot


def _paint(frames: list[Any], painted: bool) -> None:
    from playwright.sync_api import Error as PlaywrightError

    for frame in frames:
        with contextlib.suppress(PlaywrightError):  # a frame going away: nothing of it is in the shot
            frame.evaluate(PAINTED, painted)


def unpainted_screenshot(page: Any, **options: Any) -> bytes:
    """A screenshot of the page as the tests draw it (transparent): to show that others are not."""
    assert _unpainted_page_screenshot is not None, "no Chromium was opened (chromium())"
    return _unpainted_page_screenshot(page, **options)


_DISABLE_FEATURES = "--disable-features="
_disabled_by_playwright: list[str] | None = None


def _features_to_disable(playwright: Any) -> list[str]:
    """Playwright's own ``--disable-features`` list and ``UNSEEN_FEATURES``, as one switch: Chromium
    keeps only the last ``--disable-features`` it is given, so a second one would drop Playwright's
    (which it needs, e.g. PaintHolding). Its list is read once per process from a Chromium it
    launched (``/proc``: Playwright does not say which arguments it adds)."""
    global _disabled_by_playwright
    if _disabled_by_playwright is None:
        before = set(chromium_browsers())
        probe = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            browsers = chromium_browsers()
            (launched,) = set(browsers) - before
            switches = [arg for arg in browsers[launched] if arg.startswith(_DISABLE_FEATURES)]
            last = switches[-1].removeprefix(_DISABLE_FEATURES) if switches else ""
            _disabled_by_playwright = last.split(",") if last else []
        finally:
            probe.close()
    return [*_disabled_by_playwright, *UNSEEN_FEATURES]


def disabled_by_playwright() -> list[str]:
    """The features Playwright's own ``--disable-features`` names (read by the first launch)."""
    return list(_disabled_by_playwright or ())


def chromium_browsers() -> dict[int, tuple[str, ...]]:
    """The command lines of the Chromium browsers this process drives (over a pipe; not their
    renderers and helpers, which have a ``--type``), by process id. A browser's child caught
    between its fork and its exec still shows the browser's command line: it is told by its parent,
    a browser too."""
    found: dict[int, tuple[str, ...]] = {}
    parents: dict[int, int] = {}
    for pid in _descendants(os.getpid()):
        try:
            arguments = tuple(Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0"))
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:  # it has just ended
            continue
        if "--remote-debugging-pipe" in arguments and not any(arg.startswith("--type=") for arg in arguments):
            found[pid] = arguments
            parents[pid] = int(stat[stat.rindex(")") + 2:].split()[1])
    return {pid: arguments for pid, arguments in found.items() if parents[pid] not in found}


def _descendants(root: int) -> list[int]:
    children: list[int] = []
    try:
        for thread in Path(f"/proc/{root}/task").iterdir():
            children += [int(pid) for pid in (thread / "children").read_text().split()]
    except OSError:
        return []
    return [found for child in children for found in (child, *_descendants(child))]


class WorkerChromium:
    """One Chromium for a run of browser tests in a pytest process (an xdist worker).

    Started by the first browser test and kept while browser tests follow one another, whatever
    their module, then closed before the next file's first test that is not one
    (``close_unless_next``): while
    Playwright's synchronous API is open, the thread is marked as running Playwright's event loop,
    and any other ``asyncio.run`` in it fails. ``make test`` orders the suite so that browser
    modules follow one another (tests/conftest.py). Each module gets it clean: the contexts (pages)
    a module opened are closed when it ends, so none runs on during the next module.
    """

    def __init__(self) -> None:
        self._open: Any = None
        self._browser: Any = None
        self.starts = 0

    @contextmanager
    def for_module(self) -> Iterator[Any]:
        if self._browser is None or not self._browser.is_connected():
            self.close()
            opening = chromium()
            self._browser = opening.__enter__()  # a skip (no Chromium) leaves nothing open
            self._open = opening
            self.starts += 1
        try:
            yield self._browser
        finally:
            if self._browser is not None and self._browser.is_connected():
                for context in list(self._browser.contexts):
                    context.close()

    def close_unless_next(self, next_uses_browser: bool) -> None:
        if not next_uses_browser:
            self.close()

    def close(self) -> None:
        opened, self._open, self._browser = self._open, None, None
        if opened is not None:
            opened.__exit__(None, None, None)
