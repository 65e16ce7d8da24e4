"""A one-line progress bar on stderr, drawn only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.started = time.monotonic()

    def __call__(self, label: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = width * done // max(total, 1)
        elapsed = time.monotonic() - self.started
        self.stream.write(f"\r{label[:28]:<28} [{'#' * filled}{'.' * (width - filled)}] "
                          f"{done}/{total} {elapsed:6.1f}s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()

    def rounds(self, done: int, total: int) -> None:
        self("simulating", done, total)
