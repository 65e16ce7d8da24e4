"""Message catalogues: every text a player sees, in each language, in plain JSON files a
translator edits (``web/i18n/{en,de,es,sv,fr,da}.json``, served to the page as they are).

A catalogue maps a key to a text with ``{name}`` placeholders; a text that depends on a count
has one key per plural category (``key_one``, ``key_other``: the i18next convention, which
translation tools read). The server sends errors as a key and parameters beside its English
message (rendered here, from the English catalogue, so each English text is written once); the
page renders every key in the player's language and formats each parameter by its kind (an
amount in the player's currency, a betting field by its title...).

>>> render("error.bet.outside_limits", {"field": "ante", "amount": 5, "min": 100, "max": 500})
'ante: 5 is outside the table limits (min 100, max 500)'
>>> render("error.bet.outside_limits", {"field": "ante", "amount": 5, "min": 100, "max": 500}, "de")
'ante: 5 liegt außerhalb der Tischlimits (min. 100, max. 500)'
>>> render("rg.minutes", {"count": 1}), render("rg.minutes", {"count": 5})
('1 minute', '5 minutes')
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

LANGUAGES = ("en", "de", "es", "sv", "fr", "da")
"""The languages every catalogue is complete in (a test checks it): Swedish, French and Danish
for the markets that require them (Sweden, Ontario's francophone players, Denmark)."""
DEFAULT_LANGUAGE = "en"
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
PLURAL_SUFFIXES = ("_zero", "_one", "_two", "_few", "_many", "_other")


@cache
def catalogue(language: str) -> Mapping[str, str]:
    """The catalogue of ``language`` (one of ``LANGUAGES``)."""
    if language not in LANGUAGES:
        raise ValueError(f"language: expected one of {', '.join(LANGUAGES)}, got {language!r}")
    text = resources.files("dealerpoker").joinpath(f"web/i18n/{language}.json").read_text("utf-8")
    entries: dict[str, str] = json.loads(text)
    return entries


def _plural_category(count: Any) -> str:
    # English, German and Spanish agree for whole numbers: "one" for 1, "other" otherwise.
    return "one" if count == 1 else "other"


def render(key: str, params: Mapping[str, Any] | None = None, language: str = DEFAULT_LANGUAGE) -> str:
    """The text of ``key`` in ``language`` with ``params`` filled in (as plain text: the page
    formats amounts and names for the player; messages to API clients keep minor units)."""
    entries = catalogue(language)
    values = dict(params or {})
    template = entries.get(key)
    if template is None and "count" in values:
        template = entries.get(f"{key}_{_plural_category(values['count'])}") or entries.get(f"{key}_other")
    if template is None:
        raise KeyError(f"message {key!r} is not in the {language} catalogue")

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        return str(values[name]) if name in values else match.group(0)

    return PLACEHOLDER.sub(fill, template)


#: Parameters that name a thing the catalogue translates: a hand category (slug), a rank (its
#: character) in the singular or the plural. The page formats the same kinds (``js/i18n.js``).
NAME_KINDS = {"category": "category.{}", "rank": "rank.{}_one", "rank_plural": "rank.{}_other"}


def names(params: Mapping[str, Any], language: str = DEFAULT_LANGUAGE) -> dict[str, Any]:
    """``params`` with the names of ``NAME_KINDS`` in ``language``.

    >>> names({"category": "flush", "rank_plural": "A", "pays": 3}, "de")
    {'category': 'Flush', 'rank_plural': 'Asse', 'pays': 3}
    """
    entries = catalogue(language)
    return {name: entries[NAME_KINDS[name].format(value)] if name in NAME_KINDS and value is not None
            else value for name, value in params.items()}


def english_names(params: Mapping[str, Any]) -> dict[str, Any]:
    return names(params, DEFAULT_LANGUAGE)


def base_key(key: str) -> str:
    """``key`` without a plural suffix (``rg.minutes_one`` -> ``rg.minutes``)."""
    for suffix in PLURAL_SUFFIXES:
        if key.endswith(suffix):
            return key[: -len(suffix)]
    return key
