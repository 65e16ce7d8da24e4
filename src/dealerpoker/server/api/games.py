"""``GET /api/games``: both games with rules, betting fields, limits, chips, paytables and RTPs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from dealerpoker.games import AnyGame
from dealerpoker.server.api.deps import ServicesDep, reject_unknown_query
from dealerpoker.server.api.models import GamesOut

router = APIRouter(dependencies=[Depends(reject_unknown_query)])

RtpSource = Callable[[AnyGame], Mapping[str, float | None]]


def no_rtp(game: AnyGame) -> dict[str, float | None]:
    """Until the exact analysis is wired in: every field's RTP is unknown (null)."""
    return {name: None for name in game.fields}


def describe_game(game: AnyGame, rtp: RtpSource = no_rtp) -> dict[str, Any]:
    rules = game.rules
    document = rules.to_dict()
    main = game.opening_fields[0]
    return {
        "id": game.name,
        "title": rules.title,
        "rules": document,
        "fields": [
            {"name": name, "min": rules.limits[name].min, "max": rules.limits[name].max,
             "optional": name != main, "requires": None if name == main else main}
            for name in game.opening_fields
        ],
        "actions": {phase: list(actions) for phase, actions in game.steps.items()},
        "chips": list(rules.chips),
        "paytables": {key: value for key, value in document.items()
                      if key.endswith("paytable") or key == "bonus_both_aces"},
        "rtp": dict(rtp(game)),
    }


@router.get("/api/games", response_model=GamesOut, tags=["games"])
async def list_games(services: ServicesDep) -> JSONResponse:
    """The games this server deals, as configured (limits and paytables from the rules files)."""
    return JSONResponse(services.games_document)
