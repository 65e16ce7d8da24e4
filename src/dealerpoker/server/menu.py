"""A menu's ``GET /api/games`` body: both games with rules, betting fields, limits, chips, paytables
and RTPs, built once per menu (a currency, or an operator's in a currency: ``Offer.menus``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games import AnyGame
from dealerpoker.games.currency import Currency
from dealerpoker.games.rules import CasinoHoldemRules, TexasBonusRules
from dealerpoker.messages import DEFAULT_LANGUAGE, catalogue, english_names, render
from dealerpoker.server.offer import Offer

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


def games_document(
    games: Mapping[str, AnyGame], rtps: Mapping[str, Mapping[str, float | None]] | None = None,
    currency: Currency | None = None,
) -> dict[str, Any]:
    """The ``GET /api/games`` body; the operator report compares actual returns with its RTPs.

    ``rtps`` (game -> field -> RTP) comes from the exact analysis once it is known; else null.
    A currency changes only limits and chips, never what a bet returns, so the RTPs of a game
    are the same in every currency.
    """
    known = rtps or {}

    def rtp_of(game: AnyGame) -> Mapping[str, float | None]:
        return known.get(game.name) or no_rtp(game)

    document: dict[str, Any] = {"games": [describe_game(game, rtp_of) for game in games.values()]}
    if currency is not None:
        document["currency"] = currency.to_dict()
    return document


def games_documents(offer: Offer, rtps: Mapping[str, Mapping[str, float | None]] | None = None
                    ) -> dict[str, dict[str, Any]]:
    """``Offer.menu_key`` (a currency, or an operator's in a currency) -> its ``GET /api/games`` body."""
    return {key: games_document(games, rtps, offer.currency(code)) for key, code, games in offer.menus()}


class Menu:
    """What the server offers now: the games (``Offer``: in each currency, for each operator's
    players), each menu's ``GET /api/games`` body, and the paytable versions an admin saved.

    The one part of the composition that changes while the server runs, and only through its two
    methods: ``use`` (the back office saves a new version of a game's rules: new rounds open
    under it) and ``publish_rtps`` (the exact RTPs, once the analysis has them). Everything else
    ``create_app`` builds once reads it here rather than keeping a copy.
    """

    def __init__(self, offer: Offer) -> None:
        self._offer = offer
        self._rtps: dict[str, Mapping[str, float | None]] = {}
        self._documents = games_documents(offer)
        self._versions: dict[str, dict[str, Any]] = {}
        # Every engine offered since start, by rules fingerprint (a hash of its rules document:
        # worth computing once): an open round plays on under the rules it was opened with.
        self._fingerprints: dict[int, str] = {}
        self._engines: dict[str, AnyGame] = {}
        self._register(offer)

    @property
    def offer(self) -> Offer:
        return self._offer

    @property
    def games(self) -> Mapping[str, AnyGame]:
        """Every game in the default currency."""
        return self._offer.games()

    @property
    def documents(self) -> Mapping[str, dict[str, Any]]:
        """``Offer.menu_key`` -> its ``GET /api/games`` body, built once per change (RTPs are
        precomputed, never computed per request)."""
        return self._documents

    @property
    def document(self) -> dict[str, Any]:
        """The ``GET /api/games`` body in the default currency."""
        return self._documents[self._offer.default_currency]

    @property
    def rules_versions(self) -> Mapping[str, Mapping[str, Any]]:
        """Game -> the changes of the paytable version an admin saved, in force."""
        return self._versions

    def engine(self, fingerprint: str) -> AnyGame | None:
        """The engine of these rules, if they were offered at any time since start."""
        return self._engines.get(fingerprint)

    def fingerprint(self, game: AnyGame) -> str:
        """An offered engine's rules fingerprint (computed once per engine)."""
        found = self._fingerprints.get(id(game))
        return found if found is not None else game.rules.fingerprint()

    def use(self, offer: Offer, game: str, changes: Mapping[str, Any],
            rtps: Mapping[str, float | None] | None) -> None:
        """New rounds open with ``offer`` from now on (open rounds keep their engines);
        ``GET /api/games`` shows ``game``'s new rules and ``rtps`` (None: not known yet), the
        other games' as they were."""
        self._register(offer)
        self._versions[game] = dict(changes)
        if rtps is None:
            self._rtps.pop(game, None)
        else:  # every field named, those the figures lack unknown (null)
            self._rtps[game] = {field: rtps.get(field) for field in offer.games()[game].fields}
        self._offer = offer
        self._documents = games_documents(offer, self._rtps)

    def publish_rtps(self, rtps: Mapping[str, Mapping[str, float | None]]) -> None:
        """The exact RTPs of these games, once known (the analysis runs after start-up)."""
        self._rtps.update(rtps)
        self._documents = games_documents(self._offer, self._rtps)

    def _register(self, offer: Offer) -> None:
        for engine in offer.all_engines():
            fingerprint = engine.rules.fingerprint()
            self._fingerprints[id(engine)] = fingerprint
            self._engines.setdefault(fingerprint, engine)
