"""A ``serve`` process's garbage collector: full collections walked every object of a process
holding thousands of sockets (0.7 s pauses at 4,000 players), so a serve process collects less
often and never walks what it built before serving (``server/garbage.py``)."""

from __future__ import annotations

import subprocess
import sys


def test_a_serve_process_freezes_what_it_built_and_collects_less_often() -> None:
    """``garbage.collect_less_often`` (what ``serve`` calls once its app is built), run in a
    process of its own: what existed is frozen out of collections, the thresholds are ours."""
    probe = ("import gc; from dealerpoker.server.garbage import THRESHOLDS, collect_less_often; "
             "collect_less_often(); print(gc.get_freeze_count() > 1000, gc.get_threshold() == THRESHOLDS)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60,
                          check=True)
    assert done.stdout.split() == ["True", "True"]
