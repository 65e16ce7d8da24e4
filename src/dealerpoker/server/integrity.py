"""Software verification while serving: the installed critical files against the manifest
(:mod:`dealerpoker.certify.manifest`), at start, every ``verify_interval_seconds`` and on demand.

A mismatch halts play: no new solo round, no new live round and no new bet at any table (rounds
in progress finish), ``/healthz`` says why and ``dealerpoker_software_verified`` drops to 0; the
halt holds, even if the files are put back, until a restart verifies them again. A
development checkout has no manifest: nothing is verified, and ``/healthz`` says so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dealerpoker.certify.manifest import Difference, differences, load_manifest, package_root, seeded_hmacs
from dealerpoker.errors import DealerPokerError

log = logging.getLogger("dealerpoker.integrity")

#: Where each check goes (the verification log): a dict with ``at``, ``kind``, ``seed``,
#: ``result`` and ``files`` (the files that differ).
CheckLog = Callable[[dict[str, Any]], Awaitable[None]]


class SoftwareHaltedError(DealerPokerError):
    """Play is halted: the installed software differs from its manifest."""

    code = "software_unverified"
    status = 503


@dataclass
class SoftwareIntegrity:
    root: Path
    manifest: dict[str, Any] | None
    record: CheckLog | None = None
    found: list[Difference] = field(default_factory=list)
    checked_at: str | None = None
    checks: int = 0

    @classmethod
    def installed(cls, record: CheckLog | None = None) -> SoftwareIntegrity:
        root = package_root()
        return cls(root, load_manifest(root), record)

    @property
    def state(self) -> str:
        if self.manifest is None:
            return "unverified"
        return "mismatch" if self.found else "ok"

    def halt_reason(self) -> str | None:
        """Why play is halted (``None``: it is not)."""
        if not self.found:
            return None
        return "the installed software differs from its manifest: " + ", ".join(map(str, self.found[:10]))

    def refuse_if_halted(self) -> None:
        if self.found:
            raise SoftwareHaltedError(key="error.software.halted")

    async def check(self, kind: str) -> list[Difference]:
        """Compare the files with the manifest now (``kind``: start, interval, demand)."""
        if self.manifest is None:
            return []
        found = await asyncio.to_thread(differences, self.root, self.manifest)
        self.checks += 1
        self.checked_at = datetime.now(UTC).isoformat(timespec="seconds")
        if found and not self.found:
            log.error("SOFTWARE VERIFICATION FAILED (%s): %s; new rounds and bets are halted", kind,
                      ", ".join(map(str, found)))
        if found or not self.found:  # a halt holds until a restart verifies the files again
            self.found = found
        _set_metric(0 if self.found else 1)
        await self._record(kind, None, found)
        return found

    async def verify(self, seed: str) -> dict[str, Any]:
        """The on-demand answer: HMAC-SHA256 under ``seed`` of each file and of the whole manifest."""
        names = sorted(self.manifest["files"]) if self.manifest is not None else []
        if self.manifest is None:
            from dealerpoker.certify.manifest import critical_files

            names = critical_files(self.root)
        answer = await asyncio.to_thread(seeded_hmacs, self.root, names, seed)
        found = await self.check("demand") if self.manifest is not None else []
        answer.update({"manifest": self.state, "build_id": (self.manifest or {}).get("build_id"),
                       "differences": [d.to_json() for d in found]})
        await self._record("demand-hmac", seed, found)
        return answer

    async def _record(self, kind: str, seed: str | None, found: list[Difference]) -> None:
        if self.record is None:
            return
        try:
            await self.record({"at": datetime.now(UTC).isoformat(timespec="seconds"), "kind": kind,
                               "seed": seed, "result": "mismatch" if found else "ok",
                               "build_id": (self.manifest or {}).get("build_id"),
                               "files": [d.to_json() for d in found]})
        except Exception:  # the check stands; a log that cannot be written is an alarm of its own
            log.exception("the software verification log could not be written")

    def health(self) -> dict[str, Any]:
        body: dict[str, Any] = {"state": self.state, "checked_at": self.checked_at, "checks": self.checks}
        if self.manifest is None:
            body["note"] = ("development checkout: no software manifest (dealerpoker certify manifest "
                            "writes one)")
        else:
            body["build_id"] = self.manifest.get("build_id")
            body["version"] = self.manifest.get("version")
        if self.found:
            body["halted"] = self.halt_reason()
            body["files"] = [d.to_json() for d in self.found]
        return body


def _set_metric(value: int) -> None:
    from dealerpoker.server.observability.metrics import SOFTWARE_VERIFIED

    SOFTWARE_VERIFIED.set(value)


async def verify_periodically(integrity: SoftwareIntegrity, interval: float) -> None:
    while True:
        await asyncio.sleep(interval)
        try:
            await integrity.check("interval")
        except Exception:  # a check that cannot run halts nothing by itself; it is logged
            log.exception("software verification could not run")


def database_log(database: Any) -> CheckLog:
    """The verification log in the database: each check one row of the hash-chained
    ``software_checks`` (``dealerpoker audit-log verify`` finds an edited or deleted row)."""
    import json

    from dealerpoker.server.chained_log import append
    from dealerpoker.server.schema import software_checks

    async def record(entry: dict[str, Any]) -> None:
        async with database.transaction() as connection:
            await append(connection, software_checks, {**entry, "files": json.dumps(entry["files"])})

    return record
