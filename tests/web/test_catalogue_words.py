"""The player's words, one per thing in each language (issue 28, item 8): the dealer is one word
(German "Dealer", Spanish "crupier"), the result table's four column headers differ, and the sound
switch says ON/OFF as words a player reads, not "SONIDO NO". Checked in the shipped catalogues."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import dealerpoker

CATALOGUES = Path(dealerpoker.__file__).parent / "web" / "i18n"
# Each language's word for the dealer, and the words it must not use for the same person.
DEALER = {"de": ("Dealer", ["Croupier", "Bank"]), "es": ("crupier", ["banca", "Banca", "dealer", "Dealer"])}


def catalogue(language: str) -> dict[str, str]:
    entries: dict[str, str] = json.loads((CATALOGUES / f"{language}.json").read_text())
    return entries


@pytest.mark.parametrize("language", sorted(DEALER))
def test_the_dealer_has_one_name_in_each_language(language: str) -> None:
    word, others = DEALER[language]
    text = catalogue(language)
    player_facing = {key: value for key, value in text.items() if not key.startswith("admin.")}
    # (the product's name and the dealer console's address are names, not words)
    words = {key: re.sub(r"dealerpoker|dealer\.html", "", value) for key, value in player_facing.items()}
    mixed = {key: value for key, value in words.items()
             if any(re.search(rf"\b{other}\b", value) for other in others)}
    assert not mixed, f"{language}: the dealer is {word!r}, not: {mixed}"
    assert word.lower() in text["zone.dealer"].lower() and word.lower() in text["result.dealer_hand"].lower()


@pytest.mark.parametrize("language", ["en", "de", "es"])
def test_the_result_table_has_four_different_column_headers(language: str) -> None:
    text = catalogue(language)
    headers = [text[key] for key in ("lines.field", "lines.stake", "lines.returned", "lines.net")]
    assert len(set(headers)) == 4, f"{language}: {headers}"


def test_the_spanish_sound_switch_reads_as_words() -> None:
    text = catalogue("es")
    assert (text["sound.on"], text["sound.off"]) == ("SONIDO ENCENDIDO", "SONIDO APAGADO")


# The words for a mouse in each language ("click"), which a phone's player has no use for.
MOUSE_WORDS = {"en": r"\bclick", "de": r"\bklick", "es": r"\bclic", "sv": r"\bklick", "fr": r"\bclique",
               "da": r"\bklik"}


@pytest.mark.parametrize("language", sorted(MOUSE_WORDS))
def test_the_call_to_bet_every_device_shows_names_no_mouse(language: str) -> None:
    """The status line that asks for bets, solo and live, is shown on phones as on laptops: it says
    "choose", not "click" (the help panels say what each kind of pointer does)."""
    text = catalogue(language)
    for key in ("play.place_bets", "live.place_bets"):
        assert not re.search(MOUSE_WORDS[language], text[key], re.IGNORECASE), (key, text[key])
