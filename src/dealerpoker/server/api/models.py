"""Request and response shapes (they are the OpenAPI schema the tests check responses against)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pydantic
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


def _whole(value: Any) -> Any:
    """A float with no fraction is that integer (JSON Schema's ``integer`` includes ``67.0``)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


Integer = Annotated[int, BeforeValidator(_whole), pydantic.Strict()]
"""A JSON integer: an int, or a number with no fraction (``67.0``); never a bool or a string."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class CurrencyOut(Strict):
    code: str = Field(description="ISO 4217 code, or a configured one such as mBTC")
    exponent: int = Field(description="decimals of the minor unit (amounts are integers of minor units)")
    symbol: str | None = Field(description="what to show beside amounts of a currency ISO does not list")


class SessionIn(Strict):
    currency: str | None = Field(default=None, max_length=8, examples=["JPY"],
                                 description="the new demo player's currency (one the server offers; "
                                             "default: its default currency)")
    launch: str | None = Field(default=None, min_length=1, max_length=128,
                               description="an operator's one-time launch token: the session is that "
                                           "operator's player's (currency: the launch's)")


class SessionOut(Strict):
    token: str
    player_id: str
    balance: int
    currency: str = Field(description="every amount of this player is in this currency's minor units")
    lobby_url: str | None = Field(default=None, description="an operator launch's lobby address: where the "
                                                            "page's 'leave' (the reality check's) returns")
    cashier_url: str | None = Field(default=None, description="an operator launch's cashier address")
    frame_origins: list[str] | None = Field(
        default=None, description="an operator launch's: the origins the page may talk to when it is "
        "framed (the operator's frame_ancestors; docs/operators.md#page-events)")


class EndedOut(Strict):
    ended: int = Field(description="how many sessions this ended")


class BalanceOut(Strict):
    balance: int
    currency: str


class FieldOut(Strict):
    name: str
    min: int
    max: int
    optional: bool
    requires: str | None


class GameOut(Strict):
    id: str
    title: str
    rules: dict[str, Any]
    fields: list[FieldOut]
    actions: dict[str, list[str]]
    chips: list[int]
    paytables: dict[str, Any]
    rtp: dict[str, float | None]
    field_paytables: dict[str, Any]


class GamesOut(Strict):
    games: list[GameOut]
    currency: CurrencyOut = Field(description="the currency of every limit and chip above")
    strategy_hint: bool = Field(False, description="whether this server offers the strategy hint "
                                "(GET /api/rounds/{id}/advice)")


class StepOut(Open):
    step: int
    action: str
    source: Literal["player", "timer"]
    at: str
    stake: int


class FairnessOut(Open):
    algorithm: str
    commitment: str | None
    client_seed: str | None
    nonce: int | None
    server_seed: str | None


class RoundView(Open):
    id: str
    game: str
    status: Literal["open", "settled"]
    phase: str
    bets: dict[str, int]
    player_cards: list[str]
    dealer_cards: list[str]
    board: list[str]
    legal_actions: list[str]
    action_stakes: dict[str, int]
    player_hand: dict[str, Any] | None
    bonus: dict[str, Any] | None
    settlement: dict[str, Any] | None
    steps: list[StepOut]
    balance: int
    currency: str = Field(description="the currency of every amount of the round, fixed when it opened")
    fairness: FairnessOut


class RoundsOut(Strict):
    rounds: list[RoundView]


class ReplayFrame(Open):
    """The player's view of the table right after one step (only the cards seen at that time)."""

    step: StepOut
    phase: str
    bets: dict[str, int]
    player_cards: list[str]
    dealer_cards: list[str]
    board: list[str]


class ReplayOut(Strict):
    id: str
    game: str
    currency: str
    status: Literal["open", "settled"]
    frames: list[ReplayFrame]


class RoundIn(Strict):
    game: str = Field(max_length=64, examples=["texas-bonus"])
    bets: dict[str, Integer] = Field(examples=[{"ante": 100, "bonus": 100}],
                                       description="field -> amount in minor units (cents)")
    idempotency_key: str | None = Field(
        default=None, min_length=1, max_length=128,
        description="repeating a request with the same key returns the same round, debiting nothing more")
    free_round: str | None = Field(
        default=None, min_length=1, max_length=40, examples=["fr_0123456789abcdef"],
        description="play one of the player's free rounds (GET /api/free-rounds): its ante is the "
                    "operator's, not debited; the other bets are the player's")
    jackpot: bool = Field(
        default=False, description="add the progressive jackpot bet (GET /api/jackpot: its stake in the "
                                   "player's currency, settled on the hole cards and the flop)")


class ActionIn(Strict):
    action: str = Field(max_length=32, examples=["bet"])
    step: Integer = Field(
        ge=1, le=100, examples=[1],
        description="the step this action is meant to be (the round's current len(steps)); "
                    "required: a retry of a step that already happened returns the round unchanged, "
                    "so a repeated request never moves money twice")
