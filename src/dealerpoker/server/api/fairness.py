"""Provably fair play: the next round's commitment, the client seed, and round audit records."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from dealerpoker.fairness import CLIENT_SEED_MAX_LENGTH
from dealerpoker.fairness.checks import record_digest
from dealerpoker.server.api.deps import PlayerDep, error_responses, reject_unknown_query
from dealerpoker.server.api.models import Open, Strict
from dealerpoker.server.fairness import FairnessService, published_rules, published_rules_document
from dealerpoker.server.operators.api import round_wallet
from dealerpoker.server.operators.wallet import is_remote
from dealerpoker.server.services import Services
from dealerpoker.server.signing import RecordSigner

router = APIRouter(tags=["fairness"], dependencies=[Depends(reject_unknown_query)])


class FairnessInfoOut(Strict):
    algorithm: str = Field(description="the shuffle's version, e.g. hmac-sha256-fy-v1")
    next_commitment: str = Field(description="SHA-256 of the server seed your NEXT round will use")
    client_seed: str = Field(description="your client seed (used by your next round)")
    next_nonce: int = Field(description="the nonce of your next round (counts your rounds)")


class ClientSeedIn(Strict):
    client_seed: str = Field(min_length=1, max_length=CLIENT_SEED_MAX_LENGTH, examples=["my lucky seed"],
                             description="1-128 printable ASCII characters",
                             json_schema_extra={"pattern": "^[ -~]+$"})


class RoundRecordOut(Open):
    record_version: int
    round_id: str
    game: str
    fairness: dict[str, Any]
    deck: list[int]
    record_digest: str
    signature: dict[str, str] = Field(description='{"algorithm": "ed25519", "key_id", "value"}: the '
                                      "server's signature (GET /api/fairness/public-key)")


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
    round_id: Annotated[str, Path(max_length=40)], fairness: FairnessDep, player: PlayerDep,
    request: Request,
) -> JSONResponse:
    """The full audit record of a settled round, signed by the server: check it with
    ``dealerpoker verify --round-file FILE --server URL``. An operator's real-money player's
    round also holds its ``wallet``: every wallet transaction and call (not the wallet's answers:
    staff see those), and whether a credit it owes is still pending (docs/operators.md)."""
    record = await fairness.record(player, round_id)
    services: Services = request.app.state.services
    if services.operators and is_remote(player):
        record = {**record, "wallet": await round_wallet(services.database, round_id, staff=False)}
        record["record_digest"] = record_digest(record)  # the digest covers the wallet too
    return JSONResponse(signer_of(request).sign(record))


class PublicKeyOut(Strict):
    algorithm: str = Field(description='"ed25519"')
    key_id: str = Field(description="the first 16 hex characters of the SHA-256 of the raw public key")
    public_key: str = Field(description="the raw 32-byte Ed25519 public key, hex")
    public_key_pem: str = Field(description="the same key as PEM (SubjectPublicKeyInfo)")


class PublishedRules(Strict):
    fingerprint: str = Field(description="SHA-256 of the document's canonical JSON (64 hex; 16 hex for "
                                         "documents stored before issue 15)")
    game: str
    rules_version: str
    published_at: str


class PublishedRulesList(Strict):
    rules: list[PublishedRules]


class PublishedRulesDocument(PublishedRules):
    document: dict[str, Any] = Field(description="the rules document as played (paytables, limits)")


FingerprintPath = Annotated[str, Path(pattern="^[0-9a-f]{16}([0-9a-f]{48})?$",
                                      description="a rules fingerprint, as records cite it")]


def signer_of(request: Request) -> RecordSigner:
    services: Services = request.app.state.services
    return services.signer


@router.get("/api/fairness/public-key", response_model=PublicKeyOut, responses=error_responses())
async def get_public_key(request: Request) -> JSONResponse:
    """The deployment's Ed25519 public key: every record the server hands out carries its
    signature (``dealerpoker verify --public-key FILE`` or ``--server URL`` checks it)."""
    return JSONResponse(signer_of(request).public_document())


@router.get("/api/rules", response_model=PublishedRulesList, responses=error_responses())
async def list_published_rules(request: Request) -> JSONResponse:
    """Every rules document rounds are or were played under, by fingerprint: the approved rules.
    A record whose rules are not among them fails ``dealerpoker verify --server URL``."""
    services: Services = request.app.state.services
    async with services.database.reading() as connection:
        return JSONResponse({"rules": await published_rules(connection)})


@router.get("/api/rules/{fingerprint}", response_model=PublishedRulesDocument, responses=error_responses(404))
async def get_published_rules(fingerprint: FingerprintPath, request: Request) -> JSONResponse:
    """One published rules document: its SHA-256 (the canonical JSON's) is the full fingerprint."""
    services: Services = request.app.state.services
    async with services.database.reading() as connection:
        return JSONResponse(await published_rules_document(connection, fingerprint))


def install_fairness_api(app: FastAPI, services: Services) -> None:
    fairness = FairnessService(services.database, services.games, rng=services.rng, clock=services.clock,
                               engines=services.offer.all_engines())
    app.state.fairness = fairness
    services.startup.append(fairness.store_rules)
    app.include_router(router)
