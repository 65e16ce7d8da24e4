"""Responsible gaming: limits, restrictions, play sessions and the reality check (``policy``:
the rules, pure; ``service``: over the database)."""

from dealerpoker.server.responsible.policy import (
    LIMIT_KINDS,
    InvalidLimitError,
    PlayerState,
    Profile,
    ResponsibleGamingError,
)

__all__ = ["LIMIT_KINDS", "InvalidLimitError", "PlayerState", "Profile", "ResponsibleGamingError"]
