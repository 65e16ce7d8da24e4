"""Provably fair play: the next round's commitment, the client seed, and round audit records."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from dealerpoker.fairness import CLIENT_SEED_MAX_LENGTH
from dealerpoker.server.api.deps import PlayerDep, error_responses, reject_unknown_query
from dealerpoker.server.api.models import Open, Strict
from dealerpoker.server.fairness import FairnessService
from dealerpoker.server.services import Services

router = APIRouter(tags=["fairness"], dependencies=[Depends(reject_unknown_query)])


class FairnessInfoOut(Strict):
    algorithm: str = Field(description="the shuffle's version, e.g. hmac-sha256-fy-v1")
    next_commitment: str = Field(description="SHA-256 of the server seed your NEXT round will use")
    client_seed: str = Field(description="your client seed (used by your next round)")
    next_nonce: int = Field(description="the nonce of your next round (counts your rounds)")


class ClientSeedIn(Strict):
    client_seed: str = Field(min_length=1, max_length=CLIENT_SEED_MAX_LENGTH, examples=["my lucky seed"],
                             description="1-128 printable ASCII characters")


class RoundRecordOut(Open):
    record_version: int
    round_id: str
    game: str
    fairness: dict[str, Any]
    deck: list[int]
    record_digest: str


async def fairness_service(request: Request) -> FairnessService:
    found: FairnessService = request.app.state.fairness
    return found


FairnessDep = Annotated[FairnessService, Depends(fairness_service)]


@router.get("/api/fairness", response_model=FairnessInfoOut, responses=error_responses(401, 404))
async def get_fairness(fairness: FairnessDep, player: PlayerDep) -> JSONResponse:
    """The commitment to your next round's server seed, shown before you bet, and your client seed.

    After that round is settled its view reveals the seed: check it with ``dealerpoker verify``.
    """
    return JSONResponse(await fairness.info(player))


@router.put("/api/fairness/client-seed", response_model=FairnessInfoOut,
            responses=error_responses(401, 404, 422))
async def put_client_seed(body: ClientSeedIn, fairness: FairnessDep, player: PlayerDep) -> JSONResponse:
    """Choose your client seed for your next rounds (the committed server seed stays the same)."""
    return JSONResponse(await fairness.set_client_seed(player, body.client_seed))


@router.get("/api/rounds/{round_id}/record", response_model=RoundRecordOut,
            responses=error_responses(401, 403, 404, 409, 422))
async def get_round_record(
    round_id: Annotated[str, Path(max_length=40)], fairness: FairnessDep, player: PlayerDep
) -> JSONResponse:
    """The full audit record of a settled round: check it with ``dealerpoker verify --round-file``."""
    return JSONResponse(await fairness.record(player, round_id))


def install_fairness_api(app: FastAPI, services: Services) -> None:
    fairness = FairnessService(services.database, services.games, rng=services.rng, clock=services.clock,
                               engines=services.offer.all_engines())
    app.state.fairness = fairness
    services.startup.append(fairness.store_rules)
    app.include_router(router)
