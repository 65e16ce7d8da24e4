"""``GET /api/games``: both games with rules, betting fields, limits, chips, paytables and RTPs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query
from fastapi.responses import JSONResponse

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games import AnyGame
from dealerpoker.games.rules import CasinoHoldemRules, TexasBonusRules
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


def _row(hand: str, pays: int | str) -> dict[str, Any]:
    return {"hand": hand, "pays": pays}


def _category_rows(table: Mapping[HandCategory, int], pair_label: str | None = None) -> list[dict[str, Any]]:
    """Best hand first; ``pair_label`` names the One Pair line when it needs a minimum pair."""
    ordered = sorted(table.items(), key=lambda item: item[0], reverse=True)
    return [_row(pair_label if category is HandCategory.ONE_PAIR and pair_label else category.title, pays)
            for category, pays in ordered]


def field_paytables(game: AnyGame) -> dict[str, dict[str, Any]]:
    """Each opening field's paytable as display rows ``{"rows": [{"hand", "pays"}], "note"}``.

    ``pays`` is "N to 1" as an integer, or a word ("push"). Built from the rules, so a rules file
    that changes a paytable changes what the table shows (the web page holds no rules).

    >>> from dealerpoker.games import get_game
    >>> field_paytables(get_game("casino-holdem"))["aa"]["rows"][-1]
    {'hand': 'Aces or Better', 'pays': 7}
    >>> field_paytables(get_game("texas-bonus"))["ante"]["rows"]
    [{'hand': 'Flush or better', 'pays': 1}, {'hand': 'Below a Flush', 'pays': 'push'}]
    """
    rules = game.rules
    if isinstance(rules, TexasBonusRules):
        qualifier = rules.ante_qualifier.title
        bonus = [_row(line.name, line.pays) for line in rules.bonus_paytable]
        if rules.both_aces_pays:
            bonus.insert(0, _row("Ace - Ace for you and the dealer", rules.both_aces_pays))
        return {
            "ante": {"rows": [_row(f"{qualifier} or better", 1), _row(f"Below a {qualifier}", "push")],
                     "note": f"When your hand beats the dealer's: a {qualifier} or better pays 1 to 1, "
                             "a lower hand is a stand-off. Flop, Turn and River bets pay 1 to 1."},
            "bonus": {"rows": bonus, "note": "On your first two cards, paid straight after the deal."},
        }
    assert isinstance(rules, CasinoHoldemRules)
    return {
        "ante": {"rows": _category_rows(rules.ante_paytable),
                 "note": "Paid when you beat a qualifying dealer (pair of "
                         f"{rules.dealer_qualifier_rank.plural} or better; the Raise pays 1 to 1) "
                         "and when the dealer does not qualify "
                         "(the Raise is returned)."},
        "aa": {"rows": _category_rows(rules.aa_paytable, f"{rules.aa_min_pair_rank.plural} or Better"),
               "note": "On your two cards and the flop, whatever the dealer holds."},
    }


@router.get("/api/games", response_model=GamesOut, responses=error_responses(422), tags=["games"])
async def list_games(
    services: ServicesDep,
    currency: Annotated[str | None, Query(max_length=8, description="limits and chips in this currency "
                                          "(default: the server's default currency)")] = None,
) -> JSONResponse:
    """The games this server deals, as configured (limits and paytables from the rules files, limits
    and chips of the currency asked for)."""
    code = services.offer.default_currency if currency is None else currency
    services.offer.currencies[code]
    return JSONResponse(services.games_documents[code])
