"""The tests' Chromium (tests/support/browser.py) opens no address-bar pages for its windows, and
keeps every feature switch Playwright sets: Chromium obeys only the last ``--disable-features``, so
ours carries Playwright's list too."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from tests.support import browser as support
from tests.support.waiting import until


@pytest.mark.browser
def test_a_context_opens_its_page_alone_and_playwrights_switches_stay() -> None:
    # This test's own Chromium, told apart from any other of this process still ending (a full run
    # once found two here); the first launch of a process also launches a probe (Playwright's list).
    with support.chromium():
        pass
    before = set(support.chromium_browsers())
    with support.chromium() as chromium:
        (arguments,) = [args for pid, args in support.chromium_browsers().items() if pid not in before]
        (*_, last) = [arg for arg in arguments if arg.startswith("--disable-features=")]
        disabled = set(last.removeprefix("--disable-features=").split(","))
        playwrights = set(support.disabled_by_playwright())
        assert "PaintHolding" in playwrights, "Playwright's own list, read from the Chromium it launched"
        assert playwrights | set(support.UNSEEN_FEATURES) == disabled
        context = chromium.new_context()
        context.new_page().set_content("<p>a player's page</p>")
        targets = chromium.new_browser_cdp_session().send("Target.getTargets")["targetInfos"]
        assert [target["type"] for target in targets] == ["page"], targets


def test_a_browsers_child_between_fork_and_exec_is_not_taken_for_a_browser() -> None:
    # A forked child shows its parent's command line until it execs: this stand-in forks one that
    # never does, the state a full run once caught Chromium in ("too many values to unpack").
    stand_in = subprocess.Popen([sys.executable, "-c", "import os, signal\nos.fork()\nsignal.pause()",
                                 "--remote-debugging-pipe"])
    try:
        (child,) = until(lambda: support._descendants(stand_in.pid), "the stand-in's forked child")
        browsers = support.chromium_browsers()  # the worker's own Chromium may be open too
        assert stand_in.pid in browsers and child not in browsers, browsers
    finally:
        for child in support._descendants(stand_in.pid):
            os.kill(child, signal.SIGKILL)
        stand_in.kill()
        stand_in.wait()
