"""``GET /api/games``: both games with rules, betting fields, limits, chips, paytables and RTPs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games import AnyGame
from dealerpoker.games.rules import CasinoHoldemRules, TexasBonusRules
from dealerpoker.messages import DEFAULT_LANGUAGE, catalogue, english_names, render
from dealerpoker.server.accounts import bearer_token
from dealerpoker.server.api.deps import ServicesDep, error_responses, reject_unknown_query
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
        "field_paytables": field_paytables(game),
    }


def _row(key: str, pays: int | str, fallback: str | None = None, **params: Any) -> dict[str, Any]:
    """A paytable row: its catalogue ``key`` and ``params`` (pages show it in the player's
    language) and ``hand``, the English text (``fallback``: a rules file's own line name)."""
    hand = fallback if fallback is not None else render(key, english_names(params))
    return {"hand": hand, "key": key, "params": params, "pays": pays}


def _category_rows(table: Mapping[HandCategory, int], pair_rank: str | None = None) -> list[dict[str, Any]]:
    """Best hand first; ``pair_rank`` names the One Pair line when it needs a minimum pair."""
    ordered = sorted(table.items(), key=lambda item: item[0], reverse=True)
    return [_row("paytable.pair_or_better", pays, rank_plural=pair_rank)
            if category is HandCategory.ONE_PAIR and pair_rank
            else _row(f"category.{category.slug}", pays) for category, pays in ordered]


def field_paytables(game: AnyGame) -> dict[str, dict[str, Any]]:
    """Each opening field's paytable as display rows ``{"rows": [{"hand", "pays"}], "note"}``.

    ``pays`` is "N to 1" as an integer, or a word ("push"). Built from the rules, so a rules file
    that changes a paytable changes what the table shows (the web page holds no rules).

    >>> from dealerpoker.games import get_game
    >>> field_paytables(get_game("casino-holdem"))["aa"]["rows"][-1]
    {'hand': 'Aces or Better', 'key': 'paytable.pair_or_better', 'params': {'rank_plural': 'A'}, 'pays': 7}
    >>> [row["hand"] for row in field_paytables(get_game("texas-bonus"))["ante"]["rows"]]
    ['Flush or better', 'Below a Flush']
    """
    rules = game.rules
    if isinstance(rules, TexasBonusRules):
        qualifier = rules.ante_qualifier.slug
        bonus = [_bonus_row(line.name, line.hands, line.pays) for line in rules.bonus_paytable]
        if rules.both_aces_pays:
            bonus.insert(0, _row("paytable.both_aces", rules.both_aces_pays))
        return {
            "ante": {"rows": [_row("paytable.or_better", 1, category=qualifier),
                              _row("paytable.below", "push", category=qualifier)],
                     **_note("paytable.note.texas_ante", category=qualifier)},
            "bonus": {"rows": bonus, **_note("paytable.note.texas_bonus")},
        }
    assert isinstance(rules, CasinoHoldemRules)
    return {
        "ante": {"rows": _category_rows(rules.ante_paytable),
                 **_note("paytable.note.casino_ante", rank_plural=rules.dealer_qualifier_rank.char)},
        "aa": {"rows": _category_rows(rules.aa_paytable, rules.aa_min_pair_rank.char),
               **_note("paytable.note.casino_aa")},
    }


def _bonus_row(name: str, hands: tuple[str, ...], pays: int) -> dict[str, Any]:
    """A Bonus line: the catalogue names the shipped lines by their hands (``paytable.bonus.AQs+AJs``);
    a line only a rules file has keeps the name the file gives it."""
    key = "paytable.bonus." + "+".join(hands)
    return _row(key, pays) if key in catalogue(DEFAULT_LANGUAGE) else _row(key, pays, fallback=name)


def _note(key: str, **params: Any) -> dict[str, Any]:
    return {"note": render(key, english_names(params)), "note_key": key, "note_params": params}


@router.get("/api/games", response_model=GamesOut, responses=error_responses(401, 422), tags=["games"])
async def list_games(
    services: ServicesDep,
    request: Request,
    currency: Annotated[str | None, Query(
        max_length=8, description="limits and chips in this currency "
        "(default: the player's, else the server's default currency)")] = None,
) -> JSONResponse:
    """The games this server deals, as configured (limits and paytables from the rules files, limits
    and chips of the currency asked for). Asked with a session's bearer token (optional), the
    limits and chips that player plays: an operator's player's are their operator's. (The token
    is optional, so the operation declares no security requirement.)"""
    operator = None
    token = bearer_token(request.headers.get("authorization"))
    if token is not None:
        player = await services.session_alive(token)
        player_currency, operator = await services.rounds.games_of(player)
        currency = player_currency if currency is None else currency
    code = services.offer.default_currency if currency is None else currency
    services.offer.currencies[code]
    document = services.games_documents[services.offer.menu_key(code, operator)]
    return JSONResponse({**document, "strategy_hint": services.settings.strategy_hint})
