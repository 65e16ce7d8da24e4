"""Live tables as operators configure them: a TOML file of ``[[tables]]``.

Each table names its game, optional rules file and rule overrides (limits, timeout actions,
qualifiers...), and the lengths of its betting window, decision timers and the pause between
rounds. Every problem names the file and the entry, and nothing is half-loaded.

>>> from dealerpoker.tables.config import parse_tables
>>> tables = parse_tables('''
... [[tables]]
... id = "texas-1"
... game = "texas-bonus"
... betting_seconds = 15
... decision_seconds = 10
... pause_seconds = 4
... [tables.limits]
... ante = { min = 500, max = 50000 }
... ''')
>>> table = tables[0]
>>> table.id, table.game, table.betting_seconds, table.rules.limits["ante"].min
('texas-1', 'texas-bonus', 15.0, 500)
>>> table.decision_points
('preflop', 'flop', 'turn')
>>> table.decision_bets  # the bet decided at each point (texas: named after the street it is taken on)
{'preflop': 'flop', 'flop': 'turn', 'turn': 'river'}

A studio table (``dealing = "studio"``) is dealt by a human dealer whose card reader or console
presents the table's dealer key (given in the file, or read from an environment variable):

>>> studio = parse_tables('''
... [[tables]]
... id = "studio-1"
... game = "casino-holdem"
... dealing = "studio"
... video_url = "https://studio.example/live/casino-1.m3u8"
... [tables.studio]
... dealer_key_env = "STUDIO_1_KEY"
... deal_seconds = 20
... ''', environ={"STUDIO_1_KEY": "a-long-random-dealer-key"})[0]
>>> studio.dealing, studio.studio.deal_seconds, studio.studio.accepts("a-long-random-dealer-key")
('studio', 20.0, True)
>>> "a-long-random" in repr(studio) or "a-long-random" in str(studio.to_dict())   # never shown
False
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from dealerpoker.entries import Entry, read_file, toml_entries
from dealerpoker.errors import InvalidRulesError
from dealerpoker.games import get_game
from dealerpoker.games.rules import GAMES, Rules, load_rules

_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
_CURRENCY = re.compile(r"^[A-Za-z]{2,8}$")
CurrencyOverrides = Callable[[str | None, str], Mapping[str, Any]]
"""(table currency or None for the default, game) -> that currency's rule overrides (limits, chips),
merged under the table's own; raises ``ValueError`` for a currency the server does not offer."""
_TABLE_KEYS = {
    "id", "title", "game", "rules_file", "rules", "limits", "currency",
    "betting_seconds", "decision_seconds", "pause_seconds", "dealing", "video_url", "studio",
    "jurisdictions",
}  # fmt: skip
_JURISDICTION = re.compile(r"^[A-Z]{2}(-[A-Z0-9]{1,3})?$")
_STUDIO_KEYS = {"dealer_key", "dealer_key_env", "deal_seconds"}
#: Where a table's cards come from: the server's RNG, or a studio's dealer and card reader.
DEALINGS = ("rng", "studio")
MIN_DEALER_KEY = 16
_VIDEO_URL = re.compile(r"""^(https?://[^\s"'<>]+|/[^\s"'<>]*)$""")


class InvalidTablesError(InvalidRulesError):
    """A live-tables file with a bad entry (the message names the file and the entry)."""


@dataclass(frozen=True, slots=True)
class StudioConfig:
    """A studio table's dealer side: the key its card reader or console presents, and how long
    the dealer has to report each street's cards before the round is cancelled as a misdeal."""

    dealer_key_digest: bytes = field(repr=False)
    deal_seconds: float = 30.0

    @classmethod
    def with_key(cls, key: str, deal_seconds: float = 30.0) -> StudioConfig:
        return cls(hashlib.sha256(key.encode("utf-8")).digest(), deal_seconds)

    def accepts(self, key: str) -> bool:
        """Whether ``key`` is the dealer key (compared in constant time)."""
        offered = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
        return hmac.compare_digest(offered, self.dealer_key_digest)


@dataclass(frozen=True, slots=True)
class TableConfig:
    """One live table: its game and rules, and its clock (seconds); a studio table's dealer side."""

    id: str
    title: str
    game: str
    rules: Rules
    betting_seconds: float
    decision_seconds: float
    pause_seconds: float
    #: "rng" (the server shuffles) or "studio" (a dealer deals and reports the cards).
    dealing: str = "rng"
    #: The studio's stream the player page shows above the felt (HLS/WebRTC page, video file).
    video_url: str | None = None
    studio: StudioConfig | None = None
    currency: str | None = None
    """The currency every player at the table plays in (None: the server's default currency)."""
    jurisdictions: tuple[str, ...] = ()
    """The markets whose players it seats (ISO 3166 codes; empty: every market whose profile
    allows the table's game and mode)."""

    @property
    def decision_points(self) -> tuple[str, ...]:
        """The engine phases at which every seated player decides, in order."""
        return tuple(self.rules.timeout_actions)

    @property
    def decision_bets(self) -> dict[str, str]:
        """The field each decision point's bet places (texas-bonus: the Flop bet is decided at
        "preflop"; casino-holdem: the Raise at "flop"), so pages label a decision by its bet."""
        steps = get_game(self.game, self.rules).steps
        return {point: place for point in self.decision_points
                for place in [next((s.places for s in steps[point].values() if s.places), None)] if place}

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "game": self.game,
            "betting_seconds": self.betting_seconds,
            "decision_seconds": self.decision_seconds,
            "pause_seconds": self.pause_seconds,
            "decision_points": list(self.decision_points),
            "decision_bets": self.decision_bets,
            "timeout_actions": dict(self.rules.timeout_actions),
            "limits": {name: {"min": lim.min, "max": lim.max} for name, lim in self.rules.limits.items()},
            "chips": list(self.rules.chips),
            "rules_fingerprint": self.rules.fingerprint(),
            "currency": self.currency,
            "dealing": self.dealing,
            "video_url": self.video_url,
            "jurisdictions": list(self.jurisdictions),
            "deal_seconds": None if self.studio is None else self.studio.deal_seconds,
        }


def default_tables_text() -> str:
    """The example configuration shipped with the package (``tables/tables.toml``)."""
    return resources.files("dealerpoker.tables").joinpath("tables.toml").read_text("utf-8")


def load_tables(path: str | Path | None = None, *,
                environ: Mapping[str, str] | None = None,
                currency_overrides: CurrencyOverrides | None = None,
                rules_files: Mapping[str, str | Path] | None = None) -> tuple[TableConfig, ...]:
    """Tables from an operator's TOML file; the shipped example when ``path`` is None.

    ``environ`` holds the variables a ``dealer_key_env`` names (the server passes its environment);
    ``rules_files`` (game -> TOML file, ``serve --rules``) are the rules a table of that game
    starts from when it names no ``rules_file`` of its own.
    """
    if path is None:
        return parse_tables(default_tables_text(), where="tables.toml", environ=environ,
                            currency_overrides=currency_overrides, rules_files=rules_files)
    text = read_file(path, "tables", InvalidTablesError)
    return parse_tables(text, where=str(path), base=Path(path).parent, environ=environ,
                        currency_overrides=currency_overrides, rules_files=rules_files)


def parse_tables(text: str, *, where: str = "tables", base: Path | None = None,
                 environ: Mapping[str, str] | None = None,
                 currency_overrides: CurrencyOverrides | None = None,
                 rules_files: Mapping[str, str | Path] | None = None) -> tuple[TableConfig, ...]:
    """``currency_overrides``: each currency's limits and chips (the server's currencies), which
    a table's own ``limits`` and ``rules`` override; ``rules_files`` as in :func:`load_tables`."""
    tables: list[TableConfig] = []
    for number, row in enumerate(toml_entries(text, "tables", where=where, error=InvalidTablesError)):
        entry = Entry(f"{where}: tables[{number}]", ".", InvalidTablesError)
        table = _table(entry.keys(row, _TABLE_KEYS), entry.where, base, environ or {}, currency_overrides,
                       rules_files or {})
        entry.unique_id(table.id, [t.id for t in tables])
        tables.append(table)
    return tuple(tables)


def _seconds(row: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = row.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 3600:
        raise InvalidTablesError(f"{where}.{key}: expected seconds in (0, 3600], got {value!r}")
    return float(value)


def _studio(row: Mapping[str, Any], where: str, environ: Mapping[str, str]) -> StudioConfig | None:
    """The ``dealing`` entry and, for a studio table, its ``[tables.studio]`` (dealer key, deal timer)."""
    dealing = row.get("dealing", "rng")
    if dealing not in DEALINGS:
        raise InvalidTablesError(f"{where}.dealing: expected one of {', '.join(DEALINGS)}, got {dealing!r}")
    studio = row.get("studio")
    if dealing == "rng":
        if studio is not None:
            raise InvalidTablesError(f'{where}.studio: only a studio table (dealing = "studio") has a dealer')
        return None
    if not isinstance(studio, Mapping):
        raise InvalidTablesError(f'{where}.studio: a studio table needs [tables.studio] with dealer_key '
                                 "or dealer_key_env")
    entry = Entry(f"{where}.studio", ".", InvalidTablesError)
    key = entry.secret(entry.keys(studio, _STUDIO_KEYS), "dealer_key", environ, minimum=MIN_DEALER_KEY)
    return StudioConfig.with_key(key, _seconds(studio, "deal_seconds", 30, f"{where}.studio"))


def _video_url(row: Mapping[str, Any], where: str) -> str | None:
    url = row.get("video_url")
    if url is None:
        return None
    if not isinstance(url, str) or len(url) > 2000 or not _VIDEO_URL.match(url):
        raise InvalidTablesError(f"{where}.video_url: expected an http(s):// URL or a /path, got {url!r}")
    return url


def _table(row: Any, where: str, base: Path | None, environ: Mapping[str, str],
           currency_overrides: CurrencyOverrides | None,
           rules_files: Mapping[str, str | Path]) -> TableConfig:
    table_id = row.get("id")
    if not isinstance(table_id, str) or not _ID.match(table_id):
        raise InvalidTablesError(
            f"{where}.id: expected 1-40 lowercase letters, digits or '-', got {table_id!r}")
    game = row.get("game")
    if game not in GAMES:
        raise InvalidTablesError(f"{where}.game: expected one of {', '.join(GAMES)}, got {game!r}")
    currency = row.get("currency")
    if currency is not None and (not isinstance(currency, str) or not _CURRENCY.match(currency)):
        raise InvalidTablesError(f"{where}.currency: expected a currency code such as EUR, got {currency!r}")
    overrides = row.get("rules", {})
    if not isinstance(overrides, Mapping):
        raise InvalidTablesError(f"{where}.rules: expected a table of rule overrides")
    base_overrides: Mapping[str, Any] = {}
    if currency_overrides is not None:
        try:
            base_overrides = currency_overrides(currency, game)
        except ValueError as error:
            raise InvalidTablesError(f"{where}.currency: {error}") from None
    merged = dict(base_overrides)
    for key, value in overrides.items():  # the table's own limits win field by field
        merged[key] = {**merged.get(key, {}), **value} if key == "limits" and isinstance(value, Mapping) \
            else value
    overrides = merged
    if "limits" in row:
        if not isinstance(row["limits"], Mapping):
            raise InvalidTablesError(f"{where}.limits: expected a table such as ante = {{ min, max }}")
        overrides["limits"] = {**dict(overrides.get("limits", {})), **row["limits"]}
    rules_file = row.get("rules_file")
    rules_path: str | Path | None = rules_files.get(game)  # the server's --rules for the game
    if rules_file is not None:
        if not isinstance(rules_file, str) or not rules_file:
            raise InvalidTablesError(f"{where}.rules_file: expected a path, got {rules_file!r}")
        rules_path = Path(rules_file)
        if base is not None and not rules_path.is_absolute():
            rules_path = base / rules_path
    try:
        rules = load_rules(game, rules_path, overrides=overrides)
    except InvalidRulesError as error:
        raise InvalidTablesError(f"{where}: {error}") from None
    title = row.get("title", rules.title)
    if not isinstance(title, str) or not title:
        raise InvalidTablesError(f"{where}.title: expected a non-empty string, got {title!r}")
    return TableConfig(
        id=table_id,
        title=title,
        game=game,
        rules=rules,
        betting_seconds=_seconds(row, "betting_seconds", rules.betting_seconds, where),
        decision_seconds=_seconds(row, "decision_seconds", rules.decision_seconds, where),
        pause_seconds=_seconds(row, "pause_seconds", 5, where),
        dealing=str(row.get("dealing", "rng")),
        video_url=_video_url(row, where),
        studio=_studio(row, where, environ),
        currency=currency,
        jurisdictions=_jurisdictions(row, where),
    )


def _jurisdictions(row: Mapping[str, Any], where: str) -> tuple[str, ...]:
    codes = row.get("jurisdictions", [])
    if not isinstance(codes, list) or not all(isinstance(c, str) and _JURISDICTION.match(c) for c in codes) \
            or len(set(codes)) != len(codes):
        raise InvalidTablesError(f"{where}.jurisdictions: expected distinct ISO 3166 codes such as "
                                 f'["GB", "CA-ON"], got {codes!r}')
    return tuple(codes)
