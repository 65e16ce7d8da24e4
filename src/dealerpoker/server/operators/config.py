"""The operators file (``serve --operators FILE``): the casinos that launch players here and own
their money.

Each ``[[operators]]`` entry has an ``id``, its ``secret`` (or ``secret_env``: the name of an
environment variable holding it), the ``wallet_url`` of its seamless wallet, the ``currencies``
its players hold, the origins allowed to embed the table page (``frame_ancestors``), and
optionally per-currency ``limits`` and ``chips`` that narrow the server's own for its players,
a ``responsible_gaming`` table: its players' responsible-gaming profile (the deployment's
settings, each one given replacing the deployment's for them), and its ``signature`` scheme
(``"request"`` by default; ``"body-only"``, the old replayable one, only when asked for).
A bad entry is refused at start, the entry named (its position and id); a secret is never
written into an error, a log line or a record.

>>> operators = parse_operators('''
... [[operators]]
... id = "casino-a"
... secret = "0123456789abcdef0123"
... wallet_url = "http://127.0.0.1:9000/wallet"
... currencies = ["EUR", "JPY"]
... frame_ancestors = ["https://casino-a.example"]
... [operators.chips]
... EUR = [100, 500, 2500]
... [operators.limits.EUR]
... ante = { min = 100, max = 5000 }
... ''')
>>> operators[0].id, operators[0].currencies, operators[0].chips["EUR"]
('casino-a', ('EUR', 'JPY'), (100, 500, 2500))
>>> "0123456789abcdef0123" in repr(operators[0])
False
>>> parse_operators('[[operators]]\\nid = "b"\\nsecret_env = "NO_SUCH_X"', environ={})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
dealerpoker.server.operators.config.InvalidOperatorsError: operators: operators[0] (id 'b'): ... not set
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from dealerpoker.entries import Entry, read_file, toml_entries
from dealerpoker.errors import DealerPokerError
from dealerpoker.games.rules import ALL_FIELDS
from dealerpoker.jurisdictions import (
    DEFAULT,
    InvalidJurisdictionError,
    Jurisdiction,
    parse_profile,
    shipped,
    valid_code,
)
from dealerpoker.operator_signature import Scheme
from dealerpoker.server.responsible.policy import InvalidLimitError, Profile

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$")
_KEYS = {
    "id",
    "secret",
    "secret_env",
    "wallet_url",
    "currencies",
    "limits",
    "chips",
    "frame_ancestors",
    "wallet_timeout_seconds",
    "responsible_gaming",
    "jurisdictions",
    "links",
    "complaint_contact",
    "profiles",
    "signature",
}
PROFILE_KEYS: Mapping[str, type] = {
    "reality_check_minutes": int,
    "cooling_off_hours": float,
    "session_gap_minutes": int,
    "min_round_seconds": float,
    "fast_play": bool,
}
"""The settings of an operator's ``responsible_gaming`` table: the deployment profile's (the
server has no autoplay, so there is none to allow)."""
MIN_SECRET_LENGTH = 16
"""Characters: a shorter shared secret is refused (HMAC keys should be long and random)."""


class InvalidOperatorsError(DealerPokerError, ValueError):
    """An operators file with a bad entry (the message names the file and the entry)."""


@dataclass(frozen=True, slots=True)
class Operator:
    """A casino that launches its players here and moves their money through its wallet."""

    id: str
    secret: bytes = field(repr=False)
    """The shared HMAC-SHA256 key (never logged, shown or stored)."""
    wallet_url: str
    currencies: tuple[str, ...]
    frame_ancestors: tuple[str, ...] = ()
    limits: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)
    """Currency -> betting field -> ``{"min", "max"}`` (minor units) for this operator's players."""
    chips: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Currency -> chip denominations for this operator's players."""
    wallet_timeout_seconds: float = 3.0
    """How long a wallet call may take before its outcome counts as unknown."""
    responsible_gaming: Mapping[str, Any] = field(default_factory=dict)
    """The profile settings its players play under in place of the deployment's (checked)."""
    jurisdictions: tuple[str, ...] = ()
    """The markets it may launch players into (``jurisdictions = ["GB", "CA-ON"]``); a launch
    naming none plays under the deployment's default profile."""
    profiles: Mapping[str, Jurisdiction] = field(default_factory=dict)
    """Each of its ``jurisdictions``' profile: its own where it gives one (``[[operators.profiles]]``,
    over the shipped one of the same id), else the shipped one, with its ``links``' URLs."""
    complaint_contact: str = ""
    """How its players reach it with a complaint (shown before the regulator's procedure)."""
    signature: Scheme = "request"
    """How its requests and our wallet calls are signed: ``request`` (method, path, timestamp,
    nonce, body; the default) or ``body-only`` (the old scheme, replayable; kept only for an
    operator migrating, docs/operators.md#migrating-from-body-only-signatures)."""

    def profile(self, deployment: Profile) -> Profile:
        """This operator's players' responsible-gaming profile: the deployment's, with the
        settings this operator gives in place of the deployment's."""
        return replace(deployment, **self.responsible_gaming) if self.responsible_gaming else deployment

    def wallet_endpoint(self, call: str) -> str:
        return self.wallet_url.rstrip("/") + "/" + call


def load_operators(path: str | Path, environ: Mapping[str, str] | None = None) -> tuple[Operator, ...]:
    text = read_file(path, "operators", InvalidOperatorsError)
    return parse_operators(text, where=str(path), environ=environ)


def parse_operators(
    text: str, *, where: str = "operators", environ: Mapping[str, str] | None = None
) -> tuple[Operator, ...]:
    env = os.environ if environ is None else environ
    found: list[Operator] = []
    for number, row in enumerate(toml_entries(text, "operators", where=where, error=InvalidOperatorsError)):
        name = row.get("id") if isinstance(row, Mapping) else None
        label = f"{where}: operators[{number}]" + (f" (id {name!r})" if isinstance(name, str) else "")
        entry = Entry(label, ": ", InvalidOperatorsError)
        operator = _operator(entry, entry.keys(row, _KEYS), env)
        entry.unique_id(operator.id, [other.id for other in found])
        found.append(operator)
    return tuple(found)


def _operator(entry: Entry, row: Mapping[str, Any], env: Mapping[str, str]) -> Operator:
    where = entry.where
    operator_id = row.get("id")
    if not isinstance(operator_id, str) or not _ID.match(operator_id):
        raise entry.fail("id", "expected 1-32 letters, digits, '.', '_' or '-'")
    secret = entry.secret(row, "secret", env, minimum=MIN_SECRET_LENGTH).encode()
    url = row.get("wallet_url")
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
        raise entry.fail("wallet_url", f"expected an http(s):// URL, got {url!r}")
    currencies = row.get("currencies")
    if (
        not isinstance(currencies, list)
        or not currencies
        or not all(isinstance(c, str) for c in currencies)
        or len(set(currencies)) != len(currencies)
    ):
        raise entry.fail("currencies", 'expected a list of distinct currency codes, e.g. ["EUR"]')
    ancestors = row.get("frame_ancestors", [])
    if not isinstance(ancestors, list) or not all(_origin(origin) for origin in ancestors):
        bad = (
            next((o for o in ancestors if not _origin(o)), ancestors)
            if isinstance(ancestors, list)
            else ancestors
        )
        raise entry.fail("frame_ancestors", f'expected origins such as "https://casino.example", got {bad!r}')
    timeout = row.get("wallet_timeout_seconds", 3.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 60:
        raise entry.fail("wallet_timeout_seconds", f"expected a number in (0, 60], got {timeout!r}")
    limits = _per_currency(row.get("limits", {}), currencies, f"{where}: limits")
    chips = _per_currency(row.get("chips", {}), currencies, f"{where}: chips")
    operator = Operator(
        operator_id,
        secret,
        str(url),
        tuple(currencies),
        tuple(ancestors),
        {code: _limits(value, f"{where}: limits.{code}") for code, value in limits.items()},
        {code: _chips(value, f"{where}: chips.{code}") for code, value in chips.items()},
        float(timeout),
        _profile(entry, row.get("responsible_gaming", {})),
        signature=_scheme(entry, row.get("signature", "request")),
    )
    contact = row.get("complaint_contact", "")
    if not isinstance(contact, str) or len(contact) > 500:
        raise entry.fail("complaint_contact", "expected text (at most 500 characters)")
    codes, profiles = _jurisdictions(entry, row, contact)
    return replace(operator, jurisdictions=codes, profiles=profiles, complaint_contact=contact)


_SHIPPED = shipped()


def _jurisdictions(entry: Entry, row: Mapping[str, Any],
                   contact: str) -> tuple[tuple[str, ...], dict[str, Jurisdiction]]:
    """The operator's markets and their profiles: its own (``profiles``, an entry per market, over
    the shipped one of that id when there is one) or the shipped ones, each with the operator's
    URLs for the links it requires (``links``: link id -> https URL)."""
    codes = row.get("jurisdictions", [])
    if not isinstance(codes, list) or len(set(map(str, codes))) != len(codes) \
            or not all(valid_code(code) and code != DEFAULT for code in codes):
        raise entry.fail("jurisdictions", 'expected distinct ISO 3166 codes, e.g. ["GB", "CA-ON"]')
    links = row.get("links", {})
    if not isinstance(links, Mapping) or not all(
            isinstance(url, str) and url.startswith("https://") for url in links.values()):
        raise entry.fail("links", 'expected link id = "https://..." (e.g. spelpaus = "https://www.spelpaus.se/")')
    own = row.get("profiles", [])
    if not isinstance(own, list):
        raise entry.fail("profiles", "expected [[operators.profiles]] entries")
    found: dict[str, Jurisdiction] = {}
    for number, document in enumerate(own):
        code = document.get("id") if isinstance(document, Mapping) else None
        try:
            profile = parse_profile(document, where=entry.at(f"profiles[{number}]"),
                                    base=_SHIPPED.get(str(code)))
        except InvalidJurisdictionError as error:
            raise entry.error(str(error)) from None
        if profile.id not in codes:
            raise entry.fail(f"profiles[{number}]", f"profile {profile.id!r} is not one of its jurisdictions")
        found[profile.id] = profile
    for code in codes:
        if code not in found:
            if code not in _SHIPPED:
                raise entry.fail("jurisdictions", f"{code}: no profile shipped for it: give one in "
                                                  "[[operators.profiles]] (docs/jurisdictions.md)")
            found[code] = _SHIPPED[code]
        missing = [link for link in found[code].links if link not in links]
        if missing:
            raise entry.fail("links", f"{code} requires links {', '.join(missing)}: give their URLs")
        given = {link: str(links[link]) for link in found[code].links}
        found[code] = found[code].for_operator(given, contact)
    return tuple(codes), found


def _scheme(entry: Entry, value: Any) -> Scheme:
    if value == "request":
        return "request"
    if value == "body-only":
        return "body-only"
    raise entry.fail("signature", f'expected "request" (the default) or "body-only", got {value!r}')


def _profile(entry: Entry, value: Any) -> dict[str, Any]:
    """An operator's ``responsible_gaming`` settings, each checked as the deployment's are."""
    key = "responsible_gaming"
    if not isinstance(value, Mapping):
        raise entry.fail(key, "expected a table of profile settings, e.g. { reality_check_minutes = 60 }")
    for name, given in value.items():
        kind = PROFILE_KEYS.get(name)
        if kind is None:
            raise entry.fail(f"{key}.{name}", f"unknown setting (settings: {', '.join(PROFILE_KEYS)})")
        number = kind is float and isinstance(given, int | float)
        if isinstance(given, bool) != (kind is bool) or not (number or isinstance(given, kind)):
            expected = {int: "whole minutes", float: "a number", bool: "true or false"}[kind]
            raise entry.fail(f"{key}.{name}", f"expected {expected}, got {given!r}")
    try:
        Profile(**value)
    except InvalidLimitError as error:  # its message begins with the setting's name
        raise entry.fail(key, str(error)) from None
    return dict(value)


def _origin(value: object) -> bool:
    if not isinstance(value, str):
        return False
    if value == "'self'":
        return True
    parts = urlsplit(value)
    return (
        parts.scheme in ("http", "https")
        and bool(parts.netloc)
        and parts.path in ("", "/")
        and not parts.query
        and not parts.fragment
    )


def _per_currency(value: Any, currencies: Sequence[str], where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidOperatorsError(f"{where}: expected a table of currency codes")
    for code in value:
        if code not in currencies:
            raise InvalidOperatorsError(
                f"{where}.{code}: not one of the operator's currencies ({', '.join(currencies)})"
            )
    return value


def _limits(value: Any, where: str) -> dict[str, dict[str, int]]:
    if not isinstance(value, Mapping):
        raise InvalidOperatorsError(f"{where}: expected fields such as ante = {{ min, max }}")
    found: dict[str, dict[str, int]] = {}
    for name, limit in value.items():
        if name not in ALL_FIELDS:
            raise InvalidOperatorsError(
                f"{where}.{name}: unknown betting field (fields: {', '.join(ALL_FIELDS)})"
            )
        if (
            not isinstance(limit, Mapping)
            or set(limit) != {"min", "max"}
            or not all(isinstance(limit[k], int) and not isinstance(limit[k], bool) for k in ("min", "max"))
        ):
            raise InvalidOperatorsError(f"{where}.{name}: expected {{ min = N, max = N }} (minor units)")
        found[name] = {"min": limit["min"], "max": limit["max"]}
    return found


def _chips(value: Any, where: str) -> tuple[int, ...]:
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(chip, int) and not isinstance(chip, bool) and chip > 0 for chip in value)
    ):
        raise InvalidOperatorsError(
            f"{where}: expected a list of chip denominations (integers > 0, minor units)"
        )
    return tuple(value)
