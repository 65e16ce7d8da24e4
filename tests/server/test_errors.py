"""Errors name their own wire code and HTTP status; REST and WebSocket answers come from one lookup."""

from __future__ import annotations

import json

import pytest

import dealerpoker.analysis.simulate
import dealerpoker.cli._records
import dealerpoker.server.live.extension
import dealerpoker.server.settings
import dealerpoker.tables.config  # noqa: F401  (every module defining an error class is loaded)
from dealerpoker.errors import (
    BetLimitError,
    DealerPokerError,
    IllegalActionError,
    InsufficientFundsError,
    InvalidCardError,
    InvalidHandError,
    InvalidRulesError,
    InvalidSeedError,
)
from dealerpoker.games.currency import UnknownCurrencyError
from dealerpoker.server.accounts import AuthenticationError, bearer_token
from dealerpoker.server.db import DatabaseBusyError
from dealerpoker.server.edge.errors import domain_error_response
from dealerpoker.server.edge.ratelimit import RateLimitedError
from dealerpoker.server.errors import (
    ConflictError,
    ForbiddenError,
    NotFoundError,
    UnknownGameError,
    UnknownParameterError,
    WrongCurrencyError,
    error_fields,
)
from dealerpoker.server.integrity import SoftwareHaltedError
from dealerpoker.server.live.advice import TableUnavailableError
from dealerpoker.server.operators.wallet import WalletRefusedError, WalletUnavailableError
from dealerpoker.server.responsible import InvalidLimitError, ResponsibleGamingError
from dealerpoker.tables.table import LiveTableError

# The wire contract (docs: every REST error is {"error": code, "message"} with this status).
CONTRACT: dict[type[DealerPokerError], tuple[int, str]] = {
    AuthenticationError: (401, "unauthorized"),
    ForbiddenError: (403, "forbidden"),
    NotFoundError: (404, "not_found"),
    InsufficientFundsError: (409, "insufficient_funds"),
    IllegalActionError: (409, "illegal_action"),
    ConflictError: (409, "conflict"),
    UnknownGameError: (422, "unknown_game"),
    InvalidSeedError: (422, "invalid_seed"),
    BetLimitError: (422, "bet_limit"),
    UnknownParameterError: (422, "invalid_request"),
    InvalidCardError: (422, "invalid_request"),
    InvalidHandError: (422, "invalid_request"),
    InvalidRulesError: (422, "invalid_request"),
    ResponsibleGamingError: (403, "responsible_gaming"),
    InvalidLimitError: (422, "invalid_limit"),
    WrongCurrencyError: (409, "wrong_currency"),
    UnknownCurrencyError: (422, "unknown_currency"),
    RateLimitedError: (429, "rate_limited"),
    WalletRefusedError: (409, "wallet_refused"),
    WalletUnavailableError: (503, "wallet_unavailable"),
}
UPSTREAM_FAILURES = {WalletUnavailableError, TableUnavailableError, DatabaseBusyError, SoftwareHaltedError}
"""Not the request's fault: the operator's wallet, the process running a live table, or a free
database connection did not answer in time, or play is halted until the software verifies
(5xx; the player may retry)."""


def every_error_class() -> list[type[DealerPokerError]]:
    found, todo = [], [DealerPokerError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


@pytest.mark.parametrize(("cls", "expected"), CONTRACT.items(), ids=lambda v: getattr(v, "__name__", ""))
def test_each_error_names_its_status_and_code(cls: type[DealerPokerError], expected: tuple[int, str]) -> None:
    assert (cls.status, cls.code) == expected


@pytest.mark.parametrize("cls", every_error_class(), ids=lambda cls: cls.__name__)
def test_rest_answers_with_the_status_and_fields_of_the_one_lookup(cls: type[DealerPokerError]) -> None:
    error = example(cls)
    assert 500 <= error.status < 600 if cls in UPSTREAM_FAILURES else 400 <= error.status < 500
    response = domain_error_response(error)
    assert response.status_code == error.status
    assert json.loads(response.body) == error_fields(error)
    assert error_fields(error)["message"] == str(error)


def example(cls: type[DealerPokerError]) -> DealerPokerError:
    """An instance of an error class, for the classes whose constructor takes more than a message."""
    if cls is LiveTableError:
        return cls("what went wrong", code="no_more_bets")
    if cls is RateLimitedError:
        return RateLimitedError("sessions", 30, "5/minute")
    if cls is DatabaseBusyError:
        return DatabaseBusyError(10.0)
    return cls("what went wrong")


def test_the_fields_of_an_error_carry_its_details() -> None:
    assert error_fields(InsufficientFundsError("short", balance=5, needed=9)) == {
        "error": "insufficient_funds", "message": "short", "balance": 5, "needed": 9}
    assert error_fields(IllegalActionError("no", phase="flop", action="fold")) == {
        "error": "illegal_action", "message": "no", "phase": "flop", "action": "fold"}
    assert error_fields(BetLimitError("limits", field="ante"))["field"] == "ante"
    assert error_fields(LiveTableError("late", code="no_more_bets"))["error"] == "no_more_bets"


def test_an_unauthorised_answer_asks_for_a_bearer_token() -> None:
    assert domain_error_response(AuthenticationError("who?")).headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(("header", "token"), [
    ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER  abc ", "abc"), ("Bearer", None),
    ("Bearer ", None), ("Basic abc", None), ("", None), (None, None), ("abc", None),
])
def test_one_bearer_parser(header: str | None, token: str | None) -> None:
    assert bearer_token(header) == token
