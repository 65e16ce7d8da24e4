"""Jurisdiction profiles: what each market's regulator requires of the game itself, as data.

A profile (one TOML file under ``profiles/``, or an operator's own in the operators file) gives
each setting as ``{ value, clause, unconfirmed?, note? }``: the value the server enforces and the
page shows, the regulator's clause it implements, and, where the clause could not be confirmed
in the regulator's published text, ``unconfirmed = true`` with a note saying what is missing.
Loading checks every setting and refuses a bad one naming the file, the profile and the setting.

Pure: no server, no clock. The server chooses a player's profile at launch and enforces it
(``dealerpoker.server.jurisdiction``); a round record carries the ``enforced`` part, which the
verifier checks the round against (``check_round``).

>>> profiles = shipped()
>>> sorted(profiles)
['CA-ON', 'DK', 'GB', 'MT', 'SE', 'default']
>>> profiles["GB"].min_round_seconds, profiles["GB"].autoplay, profiles["SE"].links
(2.5, False, ('spelpaus', 'spelgranser', 'sjalvtest'))
>>> check_round(profiles["default"].enforced(), game="texas-bonus", mode="solo",
...             rules_fingerprint="f" * 64, stake=100, currency="EUR")
[]
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from dealerpoker.errors import DealerPokerError

__all__ = [
    "DEFAULT",
    "MODES",
    "InvalidJurisdictionError",
    "Jurisdiction",
    "JurisdictionRefusedError",
    "check_round",
    "parse_profile",
    "shipped",
    "valid_code",
]

DEFAULT = "default"
MODES = ("solo", "live", "studio")
_GAMES = ("texas-bonus", "casino-holdem")
_CODE = re.compile(r"^[A-Z]{2}(-[A-Z0-9]{1,3})?$")
"""ISO 3166-1 alpha-2 (``GB``) or ISO 3166-2 (``CA-ON``)."""
_LINK = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_LANGUAGE = re.compile(r"^[a-z]{2}$")
_CURRENCY = re.compile(r"^[A-Za-z]{2,8}$")
_ENTRY_KEYS = {"value", "clause", "unconfirmed", "note"}
_TOP_KEYS = {"id", "name", "regulator", "version", "source", "settings"}


def valid_code(code: object) -> bool:
    """Whether ``code`` is a jurisdiction code: ``default``, ISO 3166-1 alpha-2 or ISO 3166-2."""
    return isinstance(code, str) and (code == DEFAULT or bool(_CODE.match(code)))


class InvalidJurisdictionError(DealerPokerError, ValueError):
    """A profile with a bad entry (the message names the file, the profile and the setting)."""


RULE_KEYS = {
    "games": "error.juris.games",
    "modes": "error.juris.modes",
    "paytables": "error.juris.paytables",
    "max_stake": "error.juris.max_stake",
    "jurisdictions": "error.juris.jurisdictions",
    "table_jurisdictions": "error.juris.table_jurisdictions",
    "currencies": "error.juris.currencies",
    "strategy_hint": "error.juris.strategy_hint",
}
"""Each rule's message key: the page shows the refusal in the player's language."""


class JurisdictionRefusedError(DealerPokerError, ValueError):
    """An action the player's jurisdiction does not allow: ``rule`` names the profile's setting,
    ``jurisdiction`` the profile."""

    code = "jurisdiction"
    status = 403

    def __init__(
        self, message: str | None = None, *, rule: str = "", jurisdiction: str = "", **params: Any
    ) -> None:
        key = params.pop("key", None) or RULE_KEYS.get(rule)
        super().__init__(message, key=key, rule=rule, jurisdiction=jurisdiction, **params)
        self.rule = rule
        self.jurisdiction = jurisdiction

    def details(self) -> dict[str, Any]:
        return {"rule": self.rule, "jurisdiction": self.jurisdiction}


@dataclass(frozen=True, slots=True)
class Setting:
    value: Any
    clause: str
    unconfirmed: bool = False
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"value": self.value, "clause": self.clause}
        if self.unconfirmed:
            found["unconfirmed"] = True
        if self.note:
            found["note"] = self.note
        return found


@dataclass(frozen=True, slots=True)
class Jurisdiction:
    """One market's profile (its settings checked)."""

    id: str
    name: str
    regulator: str
    version: str
    settings: Mapping[str, Setting]
    source: str = ""
    links_given: Mapping[str, str] = field(default_factory=dict)
    """The URLs an operator gives for the ``links`` this profile requires (by link id)."""
    complaint_contact: str = ""
    """How the operator's players reach it with a complaint (before the regulator's procedure)."""
    # The fingerprint once computed: every live bet's check cites it.
    _fingerprint: str | None = field(default=None, init=False, repr=False, compare=False)

    def value(self, name: str) -> Any:
        return self.settings[name].value

    @property
    def games(self) -> tuple[str, ...]:
        return tuple(self.value("games"))

    @property
    def modes(self) -> tuple[str, ...]:
        return tuple(self.value("modes"))

    @property
    def min_round_seconds(self) -> float:
        return float(self.value("min_round_seconds"))

    @property
    def fast_play(self) -> bool:
        return bool(self.value("fast_play"))

    @property
    def autoplay(self) -> bool:
        return bool(self.value("autoplay"))

    @property
    def links(self) -> tuple[str, ...]:
        return tuple(self.value("links"))

    @property
    def recall_rounds(self) -> int:
        return int(self.value("recall_rounds"))

    def enforced(self) -> dict[str, Any]:
        """What the server enforces on a round, as a round record carries it (with the profile's
        id, version and the fingerprint of its whole document)."""
        return {
            "id": self.id,
            "version": self.version,
            "fingerprint": self.fingerprint(),
            "games": list(self.games),
            "modes": list(self.modes),
            "paytables": self.value("paytables"),
            "max_stake": dict(self.value("max_stake")),
            "strategy_hint": self.value("strategy_hint"),
        }

    def to_dict(self) -> dict[str, Any]:
        """The whole profile: every setting with its clause (``GET /api/responsible-gaming``,
        ``GET /api/jurisdictions``)."""
        return {
            "id": self.id,
            "name": self.name,
            "regulator": self.regulator,
            "version": self.version,
            "source": self.source,
            "settings": {k: s.to_dict() for k, s in self.settings.items()},
        }

    def fingerprint(self) -> str:
        """SHA-256 of the profile's canonical JSON (its settings, clauses and version)."""
        if self._fingerprint is None:
            text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            object.__setattr__(self, "_fingerprint", hashlib.sha256(text.encode()).hexdigest())
        assert self._fingerprint is not None
        return self._fingerprint

    def for_operator(self, links: Mapping[str, str], complaint_contact: str) -> Jurisdiction:
        """This profile as an operator offers it: the URLs of the links it requires, its contact."""
        return Jurisdiction(
            self.id,
            self.name,
            self.regulator,
            self.version,
            self.settings,
            self.source,
            dict(links),
            complaint_contact,
        )

    def page(self) -> dict[str, Any]:
        """What the table page needs to show: the profile, the links with the operator's URLs,
        the complaint procedure (the operator's contact first)."""
        return {
            **self.to_dict(),
            "links": [{"id": link, "url": self.links_given.get(link, "")} for link in self.links],
            "complaint_contact": self.complaint_contact,
            "fingerprint": self.fingerprint(),
        }


# ----- parsing -------------------------------------------------------------------------------------
def _fail(where: str, problem: str) -> InvalidJurisdictionError:
    return InvalidJurisdictionError(f"{where}: {problem}")


def _strings(
    value: Any, pattern: re.Pattern[str] | None = None, allowed: Sequence[str] | None = None
) -> bool:
    return (
        isinstance(value, list)
        and all(
            isinstance(v, str) and (pattern is None or pattern.match(v)) and (allowed is None or v in allowed)
            for v in value
        )
        and len(set(value)) == len(value)
    )


def _number(value: Any, low: float, high: float) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= high


def _check_paytables(v: Any) -> str | None:
    if v == "any" or (_strings(v) and v and all(re.match(r"^[0-9a-f]{16,64}$", x) for x in v)):
        return None
    return 'expected "any" or a list of approved rules fingerprints (hex, as GET /api/games shows)'


def _check_max_stake(v: Any) -> str | None:
    if isinstance(v, Mapping) and all(
        isinstance(k, str)
        and _CURRENCY.match(k)
        and isinstance(n, int)
        and not isinstance(n, bool)
        and n >= 1
        for k, n in v.items()
    ):
        return None
    return "expected a table of currency = most minor units staked in one round, e.g. { GBP = 50000 }"


def _check_reality(v: Any) -> str | None:
    if (
        isinstance(v, Mapping)
        and set(v) == {"mode", "minutes"}
        and v["mode"] in ("mandatory", "optional")
        and isinstance(v["minutes"], int)
        and not isinstance(v["minutes"], bool)
        and 0 <= v["minutes"] <= 1440
        and (v["mode"] == "optional" or v["minutes"] >= 1)
    ):
        return None
    return 'expected { mode = "mandatory" | "optional", minutes = 0..1440 } (mandatory: at least 1)'


def _check_display(v: Any) -> str | None:
    if (
        isinstance(v, Mapping)
        and set(v) == {"session_time", "net_position", "clock"}
        and all(isinstance(x, bool) for x in v.values())
    ):
        return None
    return "expected { session_time = true|false, net_position = true|false, clock = true|false }"


def _check_complaints(v: Any) -> str | None:
    if (
        isinstance(v, Mapping)
        and set(v) == {"text", "url"}
        and isinstance(v["text"], str)
        and v["text"]
        and isinstance(v["url"], str)
        and (v["url"] == "" or v["url"].startswith("https://"))
    ):
        return None
    return 'expected { text = "...", url = "https://..." or "" }'


_CHECKS: Mapping[str, Any] = {
    "games": lambda v: (
        None if _strings(v, allowed=_GAMES) and v else f"expected a list of games among {', '.join(_GAMES)}"
    ),
    "modes": lambda v: (
        None if _strings(v, allowed=MODES) else f"expected a list of modes among {', '.join(MODES)}"
    ),
    "paytables": _check_paytables,
    "max_stake": _check_max_stake,
    "min_round_seconds": lambda v: None if _number(v, 0, 3600) else "expected seconds 0..3600",
    "fast_play": lambda v: None if isinstance(v, bool) else "expected true or false",
    "autoplay": lambda v: None if v is False else "expected false: dealerpoker has no autoplay in any market",
    "reality_check": _check_reality,
    "display": _check_display,
    "recall_rounds": lambda v: (
        None if _number(v, 0, 100) and isinstance(v, int) else "expected a whole number 0..100"
    ),
    "history_retention_days": lambda v: (
        None if isinstance(v, int) and _number(v, 1, 36500) else "expected days 1..36500"
    ),
    "complaints": _check_complaints,
    "links": lambda v: (
        None if _strings(v, _LINK) else "expected a list of link ids (lower-case letters, digits, _)"
    ),
    "languages": lambda v: None if _strings(v, _LANGUAGE) else "expected a list of two-letter language codes",
    "currencies": lambda v: None if _strings(v, _CURRENCY) else "expected a list of currency codes",
    "strategy_hint": lambda v: None if isinstance(v, bool) else "expected true or false",
    "free_bets": lambda v: None if isinstance(v, bool) else "expected true or false",
    "jackpots": lambda v: None if isinstance(v, bool) else "expected true or false",
}
SETTINGS = tuple(_CHECKS)
"""Every setting a profile gives (all of them, each with its clause)."""


def _setting(where: str, name: str, entry: Any) -> Setting:
    at = f"{where}: settings.{name}"
    if not isinstance(entry, Mapping) or "value" not in entry or "clause" not in entry:
        raise _fail(at, 'expected { value = ..., clause = "the clause it implements" }')
    unknown = set(entry) - _ENTRY_KEYS
    if unknown:
        raise _fail(f"{at}.{sorted(unknown)[0]}", f"unknown key (keys: {', '.join(sorted(_ENTRY_KEYS))})")
    clause, unconfirmed, note = entry["clause"], entry.get("unconfirmed", False), entry.get("note", "")
    if not isinstance(clause, str) or not clause.strip():
        raise _fail(f"{at}.clause", "expected the clause this setting implements (text)")
    if not isinstance(unconfirmed, bool) or not isinstance(note, str):
        raise _fail(at, "expected unconfirmed = true|false and note = text")
    if unconfirmed and not note and "none" not in clause:
        raise _fail(f"{at}.note", "an unconfirmed clause needs a note saying what could not be confirmed")
    problem = _CHECKS[name](entry["value"])
    if problem is not None:
        raise _fail(f"{at}.value", f"{problem}, got {entry['value']!r}")
    value = entry["value"]
    return Setting(dict(value) if isinstance(value, Mapping) else value, clause, unconfirmed, note)


def parse_profile(
    document: Mapping[str, Any], *, where: str, base: Jurisdiction | None = None
) -> Jurisdiction:
    """A profile from its TOML table (``base``: a shipped profile whose settings it keeps where it
    gives none: an operator's own profile of a market it names by the same id)."""
    if not isinstance(document, Mapping):
        raise _fail(where, "expected a table")
    unknown = set(document) - _TOP_KEYS
    if unknown:
        raise _fail(f"{where}: {sorted(unknown)[0]}", f"unknown key (keys: {', '.join(sorted(_TOP_KEYS))})")
    code = document.get("id")
    if not valid_code(code):
        raise _fail(
            f"{where}: id", f"expected ISO 3166-1 alpha-2 (GB), ISO 3166-2 (CA-ON) or 'default', got {code!r}"
        )
    assert isinstance(code, str)
    where = f"{where} (id {code!r})"
    texts = {}
    for key in ("name", "regulator", "version", "source"):
        value = document.get(key, getattr(base, key, "") if base is not None else "")
        if not isinstance(value, str) or (key != "source" and not value):
            raise _fail(f"{where}: {key}", "expected text")
        texts[key] = value
    settings_in = document.get("settings", {})
    if not isinstance(settings_in, Mapping):
        raise _fail(f"{where}: settings", "expected a table of settings")
    unknown = set(settings_in) - set(SETTINGS)
    if unknown:
        raise _fail(
            f"{where}: settings.{sorted(unknown)[0]}", f"unknown setting (settings: {', '.join(SETTINGS)})"
        )
    settings: dict[str, Setting] = {}
    for name in SETTINGS:
        if name in settings_in:
            settings[name] = _setting(where, name, settings_in[name])
        elif base is not None:
            settings[name] = base.settings[name]
        else:
            raise _fail(f"{where}: settings.{name}", "missing (every setting is given, with its clause)")
    return Jurisdiction(code, texts["name"], texts["regulator"], texts["version"], settings, texts["source"])


def shipped() -> dict[str, Jurisdiction]:
    """The profiles shipped in the package (``profiles/*.toml``), by id."""
    found: dict[str, Jurisdiction] = {}
    for item in sorted(resources.files(__package__).joinpath("profiles").iterdir(), key=lambda p: p.name):
        if not item.name.endswith(".toml"):
            continue
        where = f"jurisdictions/profiles/{item.name}"
        try:
            document = tomllib.loads(item.read_text("utf-8"))
        except tomllib.TOMLDecodeError as problem:
            raise _fail(where, f"not valid TOML: {problem}") from None
        profile = parse_profile(document, where=where)
        if item.name != f"{profile.id}.toml":
            raise _fail(where, f"the file of profile {profile.id!r} is named {profile.id}.toml")
        found[profile.id] = profile
    return found


# ----- a round against a profile (the server before it opens one; the verifier after) -------------
def check_round(
    enforced: Mapping[str, Any], *, game: str, mode: str, rules_fingerprint: str, stake: int, currency: str
) -> list[tuple[str, str]]:
    """The rules of ``enforced`` (a profile's ``enforced()``) a round breaks: (rule, why) pairs,
    none when it may be played there. ``stake``: the most the round can take."""
    found: list[tuple[str, str]] = []
    code = enforced.get("id", "?")
    if game not in enforced.get("games", ()):
        found.append(("games", f"{game} is not offered in {code}"))
    if mode not in enforced.get("modes", ()):
        found.append(("modes", f"{mode} play is not offered in {code}"))
    paytables = enforced.get("paytables", "any")
    if paytables != "any" and not any(rules_fingerprint.startswith(p) for p in paytables):
        found.append(("paytables", f"paytable version {rules_fingerprint[:16]} is not approved in {code}"))
    most = dict(enforced.get("max_stake", {})).get(currency)
    if most is not None and stake > most:
        found.append(
            ("max_stake", f"{stake} can be staked in this round; {code} allows at most {most} {currency}")
        )
    return found
