"""Staff passwords hashed cheaply in the test processes.

The back office hashes with argon2id at argon2-cffi's defaults (RFC 9106's second recommendation:
64 MiB, 3 passes, 4 lanes), about 0.16 s of CPU a hash or check on this machine, on purpose: a
stolen hash must be slow to guess. The back-office tests create, sign in and re-password hundreds
of staff members (749 hashes and checks in tests/backoffice alone, most of its CPU), and none of
them is about argon2's cost. So the test processes hash with the same function at the smallest
parameters argon2 allows; ``PRODUCTION`` is what a deployment gets, and
``tests/backoffice/test_access.py`` checks that a `dealerpoker admin create-user` process (this
module never runs there) stores exactly such hashes. Nothing a deployment can set changes them.
"""

from __future__ import annotations

from argon2 import PasswordHasher

from dealerpoker.server.backoffice import staff

PRODUCTION = staff._HASHER
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)  # argon2's floor: 8 KiB a lane


def install() -> None:
    """The staff module of this process hashes with ``CHEAP`` from now on (tests/conftest.py)."""
    staff._HASHER = CHEAP
