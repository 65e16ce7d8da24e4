"""Staff passwords hashed cheaply in the test processes.

The back office hashes with argon2id at argon2-cffi's defaults (RFC 9106's second recommendation:
64 MiB, 3 passes, 4 lanes), about 0.16 s of CPU a hash or check on this machine, on purpose: a
stolen hash must be slow to guess. The back-office tests create, sign in and re-password hundreds
of staff members (749 hashes and checks in tests/backoffice alone, most of its CPU), and none of
them is about argon2's cost. So the test processes hash with the same function at the smallest
parameters argon2 allows; ``PRODUCTION`` is what a deployment gets, and
``tests/backoffice/test_access.py`` checks that a `dealerpoker admin create-user` process (this
module never runs there) stores exactly such hashes. Nothing a deployment can set changes them.

A test whose ``dealerpoker`` processes check passwords by the dozen (schemathesis signing in
with wrong ones, 0.16 s each) starts them with ``in_processes``: Python then runs this module's
``install`` at their start (``cheap_passwords/sitecustomize.py``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from argon2 import PasswordHasher

from dealerpoker.server.backoffice import staff

PRODUCTION = staff._HASHER
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)  # argon2's floor: 8 KiB a lane


def install() -> None:
    """The staff module of this process hashes with ``CHEAP`` from now on (tests/conftest.py)."""
    staff._HASHER = CHEAP


SITE = Path(__file__).resolve().parent / "cheap_passwords"
ROOT = Path(__file__).resolve().parents[2]


def in_processes(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a process that hashes with ``CHEAP`` too: its PYTHONPATH starts with ``SITE``
    (whose ``sitecustomize`` calls ``install``) and the repository (where ``tests`` is)."""
    paths = [str(SITE), str(ROOT), *filter(None, [env.get("PYTHONPATH")])]
    return {**env, "PYTHONPATH": os.pathsep.join(paths)}


def is_cheap(hashed: str) -> bool:
    """Whether ``hashed`` was made with ``CHEAP``'s parameters."""
    return hashed.startswith("$argon2id$v=19$m=8,t=1,p=1$")
