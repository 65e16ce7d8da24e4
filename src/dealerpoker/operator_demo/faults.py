"""Fault injection: the ways a real operator's wallet fails a game server.

Each wallet call draws once from a seeded generator: with ``fail_rate`` it is answered ``ERROR``
without being applied; with ``timeout_rate`` it is held ``timeout_seconds`` (past the client's
timeout) and its connection dropped, not applied; with ``drop_after_commit_rate`` it is applied
(committed to the ledger) and then its connection dropped, so the answer is lost. The rates are
shares of all calls (their sum at most 1), so 0.10/0.05/0.05 fails, times out and loses 20%.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Literal

Fault = Literal["fail", "timeout", "drop"]
RATES = ("fail_rate", "timeout_rate", "drop_after_commit_rate")


class FaultsError(ValueError):
    """Rates outside 0..1, or summing over 1; the message names the problem."""


@dataclass
class Faults:
    fail_rate: float = 0.0
    timeout_rate: float = 0.0
    drop_after_commit_rate: float = 0.0
    timeout_seconds: float = 10.0
    seed: int | None = None
    counts: dict[str, int] = field(default_factory=lambda: {"fail": 0, "timeout": 0, "drop": 0, "calls": 0})

    def __post_init__(self) -> None:
        self.generator = random.Random(self.seed)
        self.set(**{name: getattr(self, name) for name in (*RATES, "timeout_seconds")})

    def set(self, **changes: Any) -> None:
        """Change rates (or ``timeout_seconds``), all checked before any is changed."""
        unknown = set(changes) - {*RATES, "timeout_seconds"}
        if unknown:
            raise FaultsError(f"unknown setting {sorted(unknown)[0]!r}")
        merged = {name: getattr(self, name) for name in (*RATES, "timeout_seconds")} | changes
        for name, value in merged.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
                raise FaultsError(f"{name} must be a number")
        for name in RATES:
            if not 0 <= merged[name] <= 1:
                raise FaultsError(f"{name} must be between 0 and 1, not {merged[name]}")
        if sum(merged[name] for name in RATES) > 1 + 1e-9:
            raise FaultsError("fail_rate + timeout_rate + drop_after_commit_rate must not exceed 1")
        if not 0 <= merged["timeout_seconds"] <= 3600:
            raise FaultsError("timeout_seconds must be between 0 and 3600")
        for name, value in merged.items():
            setattr(self, name, float(value))

    def draw(self) -> Fault | None:
        """The fault of the next wallet call, if any (counted)."""
        self.counts["calls"] += 1
        value = self.generator.random()
        fault: Fault | None = None
        if value < self.fail_rate:
            fault = "fail"
        elif value < self.fail_rate + self.timeout_rate:
            fault = "timeout"
        elif value < self.fail_rate + self.timeout_rate + self.drop_after_commit_rate:
            fault = "drop"
        if fault is not None:
            self.counts[fault] += 1
        return fault

    def to_json(self) -> dict[str, Any]:
        settings = {name: getattr(self, name) for name in (*RATES, "timeout_seconds")}
        return settings | {"counts": dict(self.counts)}
