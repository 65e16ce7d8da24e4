"""Server settings: one frozen value, built from CLI options or the environment."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.operators.config import Operator, load_operators
from dealerpoker.server.responsible.policy import InvalidLimitError, Profile

SPECIAL_PATHS = ("fast_path", "postgres_store", "known_rows")
"""What the server keeps for speed alone: the ASGI fast path of round steps, the PostgreSQL round
store, and its rows from the last write (see ``docs/architecture.md``, "A solo bet")."""
DEFAULT_DATABASE_URL = "sqlite:///dealerpoker.db"
"""The embedded default: ``dealerpoker.db`` in the working directory."""
DEFAULT_SIGNING_KEY_FILE = "dealerpoker-signing.key"
"""``serve``'s default signing key file: ``dealerpoker-signing.key`` in the working directory."""


def signing_key_file(option: str | None, environ: Mapping[str, str] | None = None) -> str:
    """A command's signing key file: ``option``, else ``$DEALERPOKER_SIGNING_KEY_FILE``, else
    :data:`DEFAULT_SIGNING_KEY_FILE` (``serve`` and ``export`` share the deployment's key)."""
    env = os.environ if environ is None else environ
    return option or env.get("DEALERPOKER_SIGNING_KEY_FILE") or DEFAULT_SIGNING_KEY_FILE


class SettingsError(DealerPokerError, ValueError):
    """A server setting that cannot work (the message names it)."""


@dataclass(frozen=True, slots=True)
class Settings:
    """What an operator can configure.

    >>> Settings().starting_balance
    100000
    >>> Settings.from_env({"DEALERPOKER_DATABASE_URL": "sqlite:///x.db"}).database_url
    'sqlite:///x.db'
    """

    database_url: str = DEFAULT_DATABASE_URL
    starting_balance: int = 100_000
    """Minor units credited (from the house) to each new demo player in a currency whose entry
    in the currencies file does not say (``starting_balance`` there wins)."""
    currencies_file: str | None = None
    """A TOML file of the currencies players may hold, with their limits and chips
    (``dealerpoker.server.currencies``; default: the shipped ``currencies.toml``)."""
    rules_files: Mapping[str, str] = field(default_factory=dict)
    """Game id -> a TOML file merged over the shipped rules (limits, paytables, timeouts)."""
    responsible_gaming: Profile = field(default_factory=Profile)
    """The deployment's responsible-gaming profile: reality checks, cooling-off of raised limits,
    play sessions, the least time between rounds (an operator's players: their operator's)."""
    abandon_after_seconds: float = 3600.0
    """An open round untouched this long is completed with the timer's default actions."""
    reaper_interval_seconds: float = 30.0
    ledger_audit_interval_seconds: float = 3600.0
    """How often the server runs the ledger audit (``dealerpoker audit-ledger``'s checks; the
    first run at start), logging each finding at ERROR; 0 turns it off."""
    run_migrations: bool = True
    signing_key_file: str | None = None
    """The deployment's Ed25519 key (PEM) that signs every record (``dealerpoker.server.signing``),
    generated there at the first start if absent; None: a key drawn for this process alone."""
    operators: tuple[Operator, ...] = ()
    """The casinos that launch their players here (``serve --operators FILE``,
    ``$DEALERPOKER_OPERATORS``; ``server.operators``): none by default, every player a demo one."""
    without: frozenset[str] = frozenset()
    """Special paths kept for speed to serve solo rounds without (``SPECIAL_PATHS``), so the
    benchmark can measure what each buys (``$DEALERPOKER_WITHOUT=fast_path,known_rows``)."""
    # The edge (``dealerpoker.server.edge``; docs/operations.md, "Hardening").
    max_body_bytes: int = 65_536
    """The largest request body; a larger one is answered 413 before it is read."""
    max_frame_bytes: int = 65_536
    """The largest WebSocket message a client may send; a larger one closes the socket (1009)."""
    extra_frame_ancestors: tuple[str, ...] = ()
    """Origins (``https://casino.example``) whose pages may frame ours besides our own and the
    operators' (``serve --frame-ancestor``, ``$DEALERPOKER_FRAME_ANCESTORS``)."""
    docs: bool = False
    """Serve ``/docs`` (Swagger UI, its assets from this server) and ``/redoc``; off by default."""
    rate_limits: Mapping[str, str] = field(default_factory=dict)
    """Name -> a limit in the ``limits`` notation (``"30/minute;500/day"``) or ``"off"``, over
    ``edge.ratelimit.DEFAULT_LIMITS`` and ``OPEN_CAPS`` (a number of sockets: ``websockets_open=50``)
    (``$DEALERPOKER_RATE_LIMITS=session=10/minute,...``)."""
    strategy_hint: bool = False
    """Offer the strategy hint: the best decision and its exact EV at each decision of a solo
    round (``GET /api/rounds/{id}/advice``, ``server.hints``; ``serve --strategy-hint``,
    ``$DEALERPOKER_STRATEGY_HINT=1``); off by default, refused (403 ``hint_off``) while off."""
    metrics: bool = True
    """Serve ``/metrics`` (Prometheus; ``$DEALERPOKER_METRICS=0``: not served)."""
    session_idle_seconds: float = 1800.0
    """A player's session (bearer token) unused this long expires (``$DEALERPOKER_SESSION_IDLE_SECONDS``)."""
    session_max_seconds: float = 43_200.0
    """A player's session expires this long after it began, however busy
    (``$DEALERPOKER_SESSION_MAX_SECONDS``)."""
    allowed_origins: tuple[str, ...] = ()
    """Origins (``https://casino.example``) whose pages may open the WebSockets besides our own
    and the ``frame_ancestors`` (``$DEALERPOKER_ALLOWED_ORIGINS``, comma-separated)."""
    redis_url: str | None = None
    """Where the rate limits count, shared by every process (``$DEALERPOKER_REDIS_URL``); else
    each process counts alone, in memory."""

    def __post_init__(self) -> None:
        if isinstance(self.starting_balance, bool) or not isinstance(self.starting_balance, int) \
                or self.starting_balance < 0:
            raise SettingsError(f"starting_balance: expected an integer >= 0, got {self.starting_balance!r}")
        if self.abandon_after_seconds <= 0:
            raise SettingsError(f"abandon_after_seconds: expected > 0, got {self.abandon_after_seconds!r}")
        unknown = sorted(set(self.without) - set(SPECIAL_PATHS))
        if unknown:
            raise SettingsError(f"without: unknown special path {unknown[0]!r} "
                                f"(known: {', '.join(SPECIAL_PATHS)})")
        for name in ("max_body_bytes", "max_frame_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1024:
                raise SettingsError(f"{name}: expected an integer >= 1024, got {value!r}")
        if self.reaper_interval_seconds <= 0:
            raise SettingsError(
                f"reaper_interval_seconds: expected > 0, got {self.reaper_interval_seconds!r}")
        for name in ("session_idle_seconds", "session_max_seconds"):
            if not getattr(self, name) > 0:
                raise SettingsError(f"{name}: expected > 0, got {getattr(self, name)!r}")
        if not self.ledger_audit_interval_seconds >= 0:
            raise SettingsError("ledger_audit_interval_seconds: expected >= 0 (0: off), "
                                f"got {self.ledger_audit_interval_seconds!r}")

    @property
    def frame_ancestors(self) -> tuple[str, ...]:
        """The origins allowed to embed the pages in a frame: every operator's ``frame_ancestors``
        and the ``extra_frame_ancestors`` (for the Content-Security-Policy's ``frame-ancestors``;
        empty: none but our own)."""
        found: dict[str, None] = dict.fromkeys(self.extra_frame_ancestors)
        for operator in self.operators:
            found.update(dict.fromkeys(operator.frame_ancestors))
        return tuple(found)

    @property
    def websocket_origins(self) -> tuple[str, ...]:
        """The other origins whose pages may open our WebSockets: ``allowed_origins`` and the
        ``frame_ancestors`` (a page framing ours runs as our origin; these are for their own)."""
        return tuple(dict.fromkeys((*self.allowed_origins, *self.frame_ancestors)))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from ``DEALERPOKER_*`` variables; keyword ``overrides`` (not None) win."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        if "DEALERPOKER_DATABASE_URL" in env:
            values["database_url"] = env["DEALERPOKER_DATABASE_URL"]
        if "DEALERPOKER_STARTING_BALANCE" in env:
            values["starting_balance"] = _int(env, "DEALERPOKER_STARTING_BALANCE")
        if "DEALERPOKER_CURRENCIES" in env:
            values["currencies_file"] = env["DEALERPOKER_CURRENCIES"]
        profile: dict[str, object] = {name: _number(env, variable)
                                      for variable, name in _PROFILE_ENVIRONMENT.items() if variable in env}
        if "DEALERPOKER_FAST_PLAY" in env:
            profile["fast_play"] = _flag(env, "DEALERPOKER_FAST_PLAY")
        if profile:
            try:
                values["responsible_gaming"] = Profile(**profile)  # type: ignore[arg-type]
            except InvalidLimitError as error:
                raise SettingsError(f"responsible gaming: {error}") from None
        if "DEALERPOKER_ABANDON_AFTER" in env:
            values["abandon_after_seconds"] = float(_int(env, "DEALERPOKER_ABANDON_AFTER"))
        if env.get("DEALERPOKER_OPERATORS"):
            values["operators"] = load_operators(env["DEALERPOKER_OPERATORS"], env)
        if "DEALERPOKER_LEDGER_AUDIT_INTERVAL" in env:
            values["ledger_audit_interval_seconds"] = float(_number(env, "DEALERPOKER_LEDGER_AUDIT_INTERVAL"))
        if env.get("DEALERPOKER_SIGNING_KEY_FILE"):
            values["signing_key_file"] = env["DEALERPOKER_SIGNING_KEY_FILE"]
        if env.get("DEALERPOKER_WITHOUT"):
            values["without"] = frozenset(name.strip() for name in env["DEALERPOKER_WITHOUT"].split(","))
        values.update(edge_settings_from_env(env))
        for variable, name in (("DEALERPOKER_SESSION_IDLE_SECONDS", "session_idle_seconds"),
                               ("DEALERPOKER_SESSION_MAX_SECONDS", "session_max_seconds")):
            if variable in env:
                values[name] = float(_number(env, variable))
        if "DEALERPOKER_STRATEGY_HINT" in env:
            hint = env["DEALERPOKER_STRATEGY_HINT"].strip().lower()
            values["strategy_hint"] = hint in ("1", "true", "yes", "on")
        if env.get("DEALERPOKER_ALLOWED_ORIGINS"):
            values["allowed_origins"] = tuple(
                origin.strip() for origin in env["DEALERPOKER_ALLOWED_ORIGINS"].split(",") if origin.strip())
        values.update({key: value for key, value in overrides.items() if value is not None})
        return cls(**values)  # type: ignore[arg-type]


_PROFILE_ENVIRONMENT = {
    "DEALERPOKER_REALITY_CHECK_MINUTES": "reality_check_minutes",
    "DEALERPOKER_LIMIT_COOLING_OFF_HOURS": "cooling_off_hours",
    "DEALERPOKER_SESSION_GAP_MINUTES": "session_gap_minutes",
    "DEALERPOKER_MIN_ROUND_SECONDS": "min_round_seconds",
}


def edge_settings_from_env(env: Mapping[str, str]) -> dict[str, object]:
    """The edge's settings from ``DEALERPOKER_MAX_BODY_BYTES``, ``DEALERPOKER_MAX_FRAME_BYTES``,
    ``DEALERPOKER_FRAME_ANCESTORS`` (comma-separated origins), ``DEALERPOKER_DOCS`` (1 or 0),
    ``DEALERPOKER_RATE_LIMITS`` (``name=limit,...``) and ``DEALERPOKER_REDIS_URL``."""
    values: dict[str, object] = {}
    for variable, name in (("DEALERPOKER_MAX_BODY_BYTES", "max_body_bytes"),
                           ("DEALERPOKER_MAX_FRAME_BYTES", "max_frame_bytes")):
        if variable in env:
            values[name] = _int(env, variable)
    if env.get("DEALERPOKER_FRAME_ANCESTORS"):
        values["extra_frame_ancestors"] = tuple(
            origin.strip() for origin in env["DEALERPOKER_FRAME_ANCESTORS"].split(",") if origin.strip())
    if "DEALERPOKER_METRICS" in env:
        values["metrics"] = env["DEALERPOKER_METRICS"].strip().lower() in ("1", "true", "yes", "on")
    if "DEALERPOKER_DOCS" in env:
        values["docs"] = env["DEALERPOKER_DOCS"].strip().lower() in ("1", "true", "yes", "on")
    if env.get("DEALERPOKER_RATE_LIMITS"):
        values["rate_limits"] = parse_rate_limits(env["DEALERPOKER_RATE_LIMITS"].split(","))
    if env.get("DEALERPOKER_REDIS_URL"):
        values["redis_url"] = env["DEALERPOKER_REDIS_URL"]
    return values


def parse_rate_limits(entries: Iterable[str]) -> dict[str, str]:
    """``["session=10/minute", "request=off"]`` -> ``{"session": "10/minute", "request": "off"}``
    (checked when the limiter is built)."""
    limits: dict[str, str] = {}
    for entry in entries:
        name, sep, limit = entry.strip().partition("=")
        if not sep or not name.strip() or not limit.strip():
            raise SettingsError(f"rate limit {entry.strip()!r}: expected NAME=LIMIT, e.g. session=10/minute")
        limits[name.strip()] = limit.strip()
    return limits


def _flag(env: Mapping[str, str], name: str) -> bool:
    value = env[name].strip().lower()
    if value not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
        raise SettingsError(f"{name}: expected 1 or 0, got {env[name]!r}")
    return value in ("1", "true", "yes", "on")


def _number(env: Mapping[str, str], name: str) -> int | float:
    try:
        value = float(env[name])
    except ValueError:
        raise SettingsError(f"{name}: expected a number, got {env[name]!r}") from None
    return int(value) if value.is_integer() and not name.endswith(("HOURS", "SECONDS")) else value


def _int(env: Mapping[str, str], name: str) -> int:
    try:
        return int(env[name])
    except ValueError:
        raise SettingsError(f"{name}: expected an integer, got {env[name]!r}") from None
