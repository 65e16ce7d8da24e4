"""The on-disk cache of analyses: ``$DEALERPOKER_CACHE_DIR`` or ``~/.cache/dealerpoker``.

One JSON document and one ``.npz`` of decision tables per key (game, rules fingerprint,
algorithm version), and one ``.npz`` of card counts per deck and card rules (see
:mod:`dealerpoker.analysis.paytable`), written atomically, and counted by one process at a time
(the others wait on its lock file, then read them). Arrays are stored uncompressed:
reading them back is then a copy from the page cache, not a decompression.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    override = os.environ.get("DEALERPOKER_CACHE_DIR")
    if override:
        return Path(override)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "dealerpoker"


class DiskCache:
    def __init__(self, directory: Path | None = None, *, read: bool = True) -> None:
        self.directory = directory or cache_dir()
        self.read = read

    def load(self, key: str) -> dict[str, Any] | None:
        path = self.directory / f"{key}.json"
        if not self.read or not path.exists():
            return None
        try:
            document: dict[str, Any] = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        return document

    def load_tables(self, key: str) -> dict[str, Any] | None:
        return self._load_arrays(self.directory / f"{key}.npz")

    def load_counts(self, key: str) -> dict[str, Any] | None:
        return self._load_arrays(self.directory / f"{key}.npz") if self.read else None

    def save_counts(self, key: str, arrays: dict[str, Any]) -> None:
        self._save_arrays(key, arrays)

    @contextmanager
    def counting(self, key: str) -> Iterator[None]:
        """Held while this process counts ``key``: an exclusive ``flock`` on a lock file beside
        the counts, which the kernel releases when the holder's file closes or the process dies."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with open(self.directory / f".{key}.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield

    def save(self, key: str, document: dict[str, Any], tables: dict[str, Any]) -> None:
        self._save_arrays(key, tables)
        tmp_json = self._temporary(key, ".json")
        tmp_json.write_text(json.dumps(document), "utf-8")
        os.replace(tmp_json, self.directory / f"{key}.json")

    def _temporary(self, key: str, suffix: str) -> Path:
        """A new file beside the final one: two writers of one key (two processes, or two threads
        of a server computing the same analysis for two requests) never share a temporary file."""
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(prefix=f".{key}.", suffix=suffix, dir=self.directory)
        os.close(handle)
        return Path(name)

    @staticmethod
    def _load_arrays(path: Path) -> dict[str, Any] | None:
        if not path.exists():
            return None
        import numpy as np

        try:
            with np.load(path) as data:
                return {name: data[name] for name in data.files}
        except (OSError, ValueError):
            return None

    def _save_arrays(self, key: str, arrays: dict[str, Any]) -> None:
        import numpy as np

        tmp = self._temporary(key, ".npz")
        np.savez(tmp, **arrays)
        os.replace(tmp, self.directory / f"{key}.npz")
