"""One txid scheme for solo and live rounds: ``{round}:{player}:{moment}`` (see ``ledger``).

Solo rounds had ``{round}:{step}`` for a step's stake (step 0: the opening bets) and
``{round}:{step}:return`` for what a step returned (step 0: the Texas Bonus; the last step: the
settlement). They become ``{round}:{player}:bets``, ``:bonus``, ``:<decision point>`` and
``:settle``, the moments live rounds already used, so old rounds read (and verify) as new ones.
Step ``k`` of a solo round is decided at its game's ``k``-th decision phase (each phase takes one
action, in order); the phases below are the games' as this migration was written. Amounts,
accounts and times are untouched.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import json
from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

PHASES = {"texas-bonus": ("preflop", "flop", "turn"), "casino-holdem": ("flop",)}
_ENTRIES = sa.text("SELECT ledger_entries.id, ledger_entries.txid, rounds.id, rounds.player_id, rounds.game, "
                   "rounds.steps FROM ledger_entries JOIN rounds ON rounds.id = ledger_entries.round_id")
_RENAME = sa.text("UPDATE ledger_entries SET txid = :txid WHERE id = :id")


def _new(txid: str, round_id: str, player: str, game: str, _steps: int) -> str | None:
    step, _, returned = txid.removeprefix(f"{round_id}:").partition(":")
    if not txid.startswith(f"{round_id}:") or not step.isdigit() or returned not in ("", "return"):
        return None  # not an old solo txid
    number = int(step)
    if returned:
        moment = "bonus" if number == 0 else "settle"
    else:
        moment = "bets" if number == 0 else PHASES[game][number - 1]
    return f"{round_id}:{player}:{moment}"


def _old(txid: str, round_id: str, player: str, game: str, steps: int) -> str | None:
    moment = txid.removeprefix(f"{round_id}:{player}:")
    if not txid.startswith(f"{round_id}:{player}:"):
        return None
    if moment in ("bets", "bonus"):
        return f"{round_id}:0" + (":return" if moment == "bonus" else "")
    if moment == "settle":
        return f"{round_id}:{steps - 1}:return"
    return f"{round_id}:{PHASES[game].index(moment) + 1}"


def _rewrite(rename: Callable[[str, str, str, str, int], str | None]) -> None:
    connection = op.get_bind()
    changes = []
    for entry_id, txid, round_id, player, game, steps in connection.execute(_ENTRIES):
        changed = rename(txid, round_id, player, game, len(json.loads(steps)))
        if changed is not None and changed != txid:
            changes.append({"id": entry_id, "txid": changed})
    if changes:
        connection.execute(_RENAME, changes)


def upgrade() -> None:
    _rewrite(_new)


def downgrade() -> None:
    _rewrite(_old)
