"""Write one section of benchmarks/RESULTS.md, keeping the other sections as they are."""

from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
from pathlib import Path

RESULTS = Path(__file__).with_name("RESULTS.md")


def machine() -> str:
    """Date, core count and CPU model, as the figures must say where they were measured."""
    model = platform.processor() or "unknown CPU"
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
        found = re.search(r"Model name:\s*(.+)", lscpu)
        if found:
            model = found.group(1).strip()
    except OSError:
        pass
    today = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"{today}; nproc {os.cpu_count()}; {model}; Python {platform.python_version()}"


def write_section(title: str, body: str) -> None:
    """Replace (or append) the ``## title`` section of RESULTS.md with ``body``."""
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    section = f"## {title}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text, count=1).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + section
    RESULTS.write_text(text)
