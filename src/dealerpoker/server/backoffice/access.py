"""Who may do what in the back office: three roles, each a set of permissions.

The server checks a permission on every back-office request (``api.require``): a page hides
what a role cannot do, but the answer to a request it may not make is 403 all the same.

>>> allowed("support", "players.view"), allowed("support", "players.adjust")
(True, False)
>>> sorted(PERMISSIONS["auditor"])  # doctest: +NORMALIZE_WHITESPACE
['audit.view', 'games.view', 'monitor.view', 'operators.view', 'players.view', 'reports.view',
 'rounds.verify', 'rounds.view']
"""

from __future__ import annotations

ROLES = ("admin", "support", "auditor")

_READ_PLAY = frozenset({"monitor.view", "rounds.view", "rounds.verify", "players.view", "games.view",
                        "operators.view"})
_CHANGES = frozenset({"tables.control", "players.adjust", "games.edit"})

PERMISSIONS: dict[str, frozenset[str]] = {
    # everything
    "admin": _READ_PLAY | _CHANGES | {"reports.view", "audit.view"},
    # reads players and rounds; no money, no configuration, no figures
    "support": _READ_PLAY,
    # read-only: records, reports, verification and the audit log
    "auditor": _READ_PLAY | {"reports.view", "audit.view"},
}


def allowed(role: str, permission: str) -> bool:
    """Whether ``role`` holds ``permission`` (an unknown role holds none)."""
    return permission in PERMISSIONS.get(role, frozenset())
