"""Solo rounds: use cases (``service``) over a ``RoundStore`` (``store``: SQL, PostgreSQL) and a
``Wallet``, with the step computed purely (``plan``)."""

from dealerpoker.server.rounds.plan import ViewJSON
from dealerpoker.server.rounds.service import RoundService
from dealerpoker.server.rounds.store import RoundStore
from dealerpoker.server.rounds.stores import round_store

__all__ = ["RoundService", "RoundStore", "ViewJSON", "round_store"]
