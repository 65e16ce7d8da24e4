"""The message catalogues (issue 17): every language complete, every key used, every key the code
uses present, the same placeholders in every language, and the English hand names the
evaluator's own.

"Used" means the key appears in the source (Python, JavaScript, HTML) as a literal, or belongs
to a family the code builds from data (``hand.{category}``, ``rank.{rank}_one``, ``error.code.{code}``,
``error.rg.{reason}``...), each family enumerated here from the code's own tables.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import dealerpoker
from dealerpoker.cards import RANK_CHARS, Rank
from dealerpoker.errors import DealerPokerError
from dealerpoker.evaluator.api import describe
from dealerpoker.evaluator.categories import HandCategory, category_of, ranks_of
from dealerpoker.games import GAMES, get_game
from dealerpoker.games.rules import load_rules
from dealerpoker.messages import LANGUAGES, PLACEHOLDER, base_key, catalogue, render
from dealerpoker.server.responsible.policy import LIMIT_KINDS, RESTRICTIONS

PACKAGE = Path(dealerpoker.__file__).parent
SOURCES = [p for p in PACKAGE.rglob("*") if p.suffix in {".py", ".js", ".html"}]
KEY = re.compile(r"""["']([a-z]+(?:\.[A-Za-z0-9_+-]+)+)["']""")
ENGLISH = catalogue("en")


def all_subclasses(cls: type) -> set[type]:
    found = set(cls.__subclasses__())
    for sub in list(found):
        found |= all_subclasses(sub)
    return found


def error_codes() -> set[str]:
    """Every code the server answers with: the error classes', a live table's refusals, the HTTP
    statuses' and the WebSocket handler's own."""
    import dealerpoker.server.app
    import dealerpoker.server.backoffice.paytables
    import dealerpoker.server.backoffice.rules_changes
    import dealerpoker.server.live.extension  # noqa: F401
    from dealerpoker.server.api.errors import _STATUS_CODES

    codes = {getattr(cls, "code", None) for cls in all_subclasses(DealerPokerError)}
    text = "\n".join(p.read_text("utf-8") for p in SOURCES if p.suffix == ".py")
    codes |= set(re.findall(r'code="([a-z_]+)"', text)) | set(re.findall(r'error_message\("([a-z_]+)"', text))
    codes |= set(_STATUS_CODES.values()) | {"internal_error", "malformed_json"}
    return {code for code in codes if isinstance(code, str)}


def built_keys() -> set[str]:
    """The keys the code builds from data rather than writes out."""
    keys = {f"rank.{r}_{form}" for r in RANK_CHARS for form in ("one", "other")}
    keys |= {f"{family}.{c.slug}" for c in HandCategory for family in ("category", "hand")}
    keys |= {f"game.{name}" for name in GAMES}
    for name in GAMES:
        game = get_game(name)
        keys |= {f"field.{field}" for field in game.fields}
        keys |= {f"action.{action}" for actions in game.steps.values() for action in actions}
        keys |= {f"action.{alias}" for alias in game.aliases}
        keys |= {f"phase.{phase}" for phase in (*game.steps, "settled")}
        rules = load_rules(name)
        keys |= {"paytable.bonus." + "+".join(line.hands) for line in getattr(rules, "bonus_paytable", ())}
    keys |= {f"error.code.{code}" for code in error_codes()}
    reasons = {*LIMIT_KINDS, *RESTRICTIONS, *(f"{kind}_open" for kind in RESTRICTIONS), "too_fast",
               "session_time", "reality_check"}
    keys |= {f"error.rg.{reason}" for reason in reasons if reason != "session_minutes"}
    return keys


def literal_keys() -> set[str]:
    found: set[str] = set()
    for path in SOURCES:
        found |= {match for match in KEY.findall(path.read_text("utf-8")) if base_key(match) in
                  {base_key(k) for k in ENGLISH} or match.split(".")[0] in {k.split(".")[0] for k in ENGLISH}}
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalogue_has_every_key_with_the_same_placeholders(language: str) -> None:
    entries = catalogue(language)
    assert set(entries) == set(ENGLISH), (set(ENGLISH) ^ set(entries))
    for key, text in entries.items():
        assert isinstance(text, str) and text.strip(), key
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(ENGLISH[key])), (language, key)
        assert "{" not in PLACEHOLDER.sub("", text) and "}" not in PLACEHOLDER.sub("", text), (language, key)


def test_every_key_the_code_uses_is_in_the_catalogue() -> None:
    used = {key for key in literal_keys() if not key.endswith((".py", ".js", ".json", ".css", ".html"))}
    plural = {base_key(key) for key in ENGLISH}
    missing = sorted(key for key in used | built_keys()
                     if key not in ENGLISH and key not in plural and _looks_like_a_message(key))
    assert not missing, f"keys used but missing from the catalogues: {missing}"


def test_every_catalogue_key_is_used() -> None:
    used = literal_keys() | built_keys()
    unused = sorted(key for key in ENGLISH if key not in used and base_key(key) not in used)
    assert not unused, f"catalogue keys no code uses: {unused}"


def _looks_like_a_message(key: str) -> bool:
    return key.split(".")[0] in {k.split(".")[0] for k in ENGLISH}


def test_the_english_hand_names_are_the_evaluators() -> None:
    """Every one of the 7,462 distinct five-card hand values, named from the catalogue as the page
    names them (the deciding ranks), equals ``evaluator.describe``."""
    from dealerpoker.evaluator.exhaustive import count_values

    values = list(count_values(5))
    assert len(values) == 7462
    for value in values:
        first, second = (Rank(r) for r in ranks_of(int(value))[:2])
        params = {"r1": ENGLISH[f"rank.{first.char}_one"], "r1s": ENGLISH[f"rank.{first.char}_other"],
                  "r2s": ENGLISH[f"rank.{second.char}_other"]}
        assert render(f"hand.{category_of(int(value)).slug}", params) == describe(int(value))


def test_german_and_spanish_hand_names_read_as_players_know_them() -> None:
    ten = {"r1": "Zehn", "r1s": "Zehner", "r2s": "Dreier"}
    assert render("hand.one-pair", ten, "de") == "Paar Zehner"
    kings_over_threes = render("hand.full-house", {"r1s": "Könige", "r2s": "Dreier"}, "de")
    assert kings_over_threes == "Full House, Könige über Dreier"
    assert render("hand.one-pair", {"r1s": "dieces"}, "es") == "Pareja de dieces"


def test_long_german_words_can_break_at_a_soft_hyphen() -> None:
    """Chromium has no German hyphenation dictionary on most Linux systems, so ``hyphens: auto``
    cannot break "Gemeinschaftskarten" at 375 px: each word of 16 letters or more a player sees
    has soft hyphens (written ``\\u00ad`` in de.json) where it may break, and none is wider than
    15 letters between two of them."""
    shown = {key: text for key, text in catalogue("de").items() if not key.startswith("admin.")}
    long_words = sorted({f"{key}: {word}" for key, text in shown.items()
                         for word in re.findall(r"[^\W\d_]{16,}", text)})
    assert not long_words, f"German words to give soft hyphens (\\u00ad) in de.json: {long_words}"
    assert "Gemeinschafts\u00adkarten" in catalogue("de")["zone.board"]
