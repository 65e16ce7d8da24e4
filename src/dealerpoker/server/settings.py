"""Server settings: one frozen value, built from CLI options or the environment."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from urllib.parse import urlsplit

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
    database_pool_size: int = 10
    """PostgreSQL: the most connections each pool of a process holds (two pools: SQLAlchemy's and
    asyncpg's, ``server.db``); players beyond them queue for one (``$DEALERPOKER_DATABASE_POOL_SIZE``)."""
    database_pool_timeout_seconds: float = 30.0
    """PostgreSQL: how long a request waits for a free connection before it is answered 503
    (``$DEALERPOKER_DATABASE_POOL_TIMEOUT``)."""
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
    drain_seconds: float = 90.0
    """On SIGTERM, how long the process may drain before it stops (``server.draining``: no new
    connections; each live table finishes its round and hands its clock to another process)."""
    verify_interval_seconds: float = 900.0
    """How often the server checks its installed critical files against the software manifest
    (``dealerpoker certify manifest``; a mismatch halts play); 0 turns the periodic check off."""
    run_migrations: bool = True
    signing_key_file: str | None = None
    """The deployment's Ed25519 key (PEM) that signs every record (``dealerpoker.server.signing``),
    generated there at the first start if absent; None: a key drawn for this process alone."""
    operators: tuple[Operator, ...] = ()
    """The casinos that launch their players here (``serve --operators FILE``,
    ``$DEALERPOKER_OPERATORS``; ``server.operators``): none by default, every player a demo one."""
    jackpot: bool = True
    """Whether players may add the progressive jackpot bet (``server.jackpot``;
    ``serve --no-jackpot``, ``$DEALERPOKER_JACKPOT=off``)."""
    jackpot_file: str | None = None
    """The deployment's jackpot (TOML, ``games.jackpot``; ``serve --jackpot FILE``,
    ``$DEALERPOKER_JACKPOT=FILE``; default: the shipped ``games/rules/jackpot.toml``)."""
    default_jurisdiction: str = "default"
    """The jurisdiction profile of the server's own (demo) players and of launches naming none
    (``dealerpoker.jurisdictions``: ``default``, the permissive play-money one, or a shipped
    market's, e.g. ``GB``; ``$DEALERPOKER_JURISDICTION``)."""
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
    public_url: str | None = None
    """The address players reach this server at (``https://games.example``; ``serve --public-url``,
    ``$DEALERPOKER_PUBLIC_URL``): a launch's ``url`` is built on it. None: the launch answers a
    relative ``url`` (the operator joins it to the address it called), never one built from the
    request's ``Host`` header (which whoever sends the request chooses)."""
    docs: bool = False
    """Serve ``/docs`` (Swagger UI, its assets from this server) and ``/redoc``; off by default."""
    rate_limits: Mapping[str, str] = field(default_factory=dict)
    """Name -> a limit in the ``limits`` notation (``"30/minute;500/day"``) or ``"off"``, over
    ``edge.ratelimit.DEFAULT_LIMITS`` and ``OPEN_CAPS`` (a number of sockets: ``websockets_open=50``)
    (``$DEALERPOKER_RATE_LIMITS=session=10/minute,...``)."""
    rate_limit_exempt: tuple[str, ...] = ()
    """Client addresses or networks (``10.0.0.7``, ``10.0.0.0/24``) none of the rate limits apply
    to, nor the per-account ones for their requests: a load test's machine, a trusted aggregator
    (``serve --rate-limit-exempt``, ``$DEALERPOKER_RATE_LIMIT_EXEMPT``, comma-separated)."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses of the reverse proxies (nginx) whose ``X-Forwarded-For`` and
    ``X-Forwarded-Proto`` name the client (for the rate limits and the logs); ``*``: any. Empty:
    uvicorn's default, 127.0.0.1 (``$FORWARDED_ALLOW_IPS`` overrides it) (``serve --trusted-proxy``,
    ``$DEALERPOKER_TRUSTED_PROXIES``)."""
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
    rtp_bounds: tuple[Fraction, Fraction] = (Fraction(85, 100), Fraction(995, 1000))
    """The least and the most exact RTP a paytable version may have, for each bet and in total
    (the back office refuses a draft outside them; ``$DEALERPOKER_RTP_BOUNDS=0.85,0.995``); the
    most is never above 1 (100%)."""
    rules_poll_seconds: float = 5.0
    """How often each process looks for a paytable version that has gone live (approved, or its
    scheduled time come) to open new rounds under it."""

    def __post_init__(self) -> None:
        if self.public_url is not None:
            parts = urlsplit(self.public_url)
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
                raise SettingsError(f"public URL {self.public_url!r}: expected http(s)://HOST[:PORT][/PATH]")
        if isinstance(self.starting_balance, bool) or not isinstance(self.starting_balance, int) \
                or self.starting_balance < 0:
            raise SettingsError(f"starting_balance: expected an integer >= 0, got {self.starting_balance!r}")
        if isinstance(self.database_pool_size, bool) or not isinstance(self.database_pool_size, int) \
                or self.database_pool_size < 1:
            raise SettingsError("database_pool_size: expected an integer >= 1, "
                                f"got {self.database_pool_size!r}")
        if not self.database_pool_timeout_seconds > 0:
            raise SettingsError("database_pool_timeout_seconds: expected > 0, "
                                f"got {self.database_pool_timeout_seconds!r}")
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
        low, high = self.rtp_bounds
        if not 0 < low <= high <= 1:
            raise SettingsError(f"rtp_bounds: expected 0 < least <= most <= 1 (100%), got {float(low)!r}, "
                                f"{float(high)!r}")
        if not self.rules_poll_seconds > 0:
            raise SettingsError(f"rules_poll_seconds: expected > 0, got {self.rules_poll_seconds!r}")
        for entry in self.rate_limit_exempt:
            address_network(entry, "rate_limit_exempt")
        for entry in self.trusted_proxies:
            if entry != "*":
                address_network(entry, "trusted_proxies")
        if not self.verify_interval_seconds >= 0:
            raise SettingsError("verify_interval_seconds: expected >= 0 (0: off), "
                                f"got {self.verify_interval_seconds!r}")
        if not self.drain_seconds >= 0:
            raise SettingsError(f"drain_seconds: expected >= 0 (0: stop at once), got {self.drain_seconds!r}")
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
        if "DEALERPOKER_DATABASE_POOL_SIZE" in env:
            values["database_pool_size"] = _int(env, "DEALERPOKER_DATABASE_POOL_SIZE")
        if "DEALERPOKER_DATABASE_POOL_TIMEOUT" in env:
            values["database_pool_timeout_seconds"] = float(_number(env, "DEALERPOKER_DATABASE_POOL_TIMEOUT"))
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
        if env.get("DEALERPOKER_JACKPOT"):
            if env["DEALERPOKER_JACKPOT"].strip().lower() in ("0", "off", "no", "false"):
                values["jackpot"] = False
            else:
                values["jackpot_file"] = env["DEALERPOKER_JACKPOT"]
        if env.get("DEALERPOKER_JURISDICTION"):
            values["default_jurisdiction"] = env["DEALERPOKER_JURISDICTION"]
        if "DEALERPOKER_LEDGER_AUDIT_INTERVAL" in env:
            values["ledger_audit_interval_seconds"] = float(_number(env, "DEALERPOKER_LEDGER_AUDIT_INTERVAL"))
        if "DEALERPOKER_DRAIN_SECONDS" in env:
            values["drain_seconds"] = float(_number(env, "DEALERPOKER_DRAIN_SECONDS"))
        if "DEALERPOKER_VERIFY_INTERVAL" in env:
            values["verify_interval_seconds"] = float(_number(env, "DEALERPOKER_VERIFY_INTERVAL"))
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
        if env.get("DEALERPOKER_RTP_BOUNDS"):
            values["rtp_bounds"] = _rtp_bounds(env["DEALERPOKER_RTP_BOUNDS"])
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
    for variable, name in (("DEALERPOKER_RATE_LIMIT_EXEMPT", "rate_limit_exempt"),
                           ("DEALERPOKER_TRUSTED_PROXIES", "trusted_proxies")):
        if env.get(variable):
            values[name] = tuple(entry.strip() for entry in env[variable].split(",") if entry.strip())
    if env.get("DEALERPOKER_PUBLIC_URL"):
        values["public_url"] = env["DEALERPOKER_PUBLIC_URL"]
    return values


def address_network(entry: str, setting: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """``10.0.0.7`` or ``10.0.0.0/24`` as a network; else a ``SettingsError`` naming ``setting``.

    >>> address_network("127.0.0.1", "rate_limit_exempt")
    IPv4Network('127.0.0.1/32')
    >>> address_network("localhost", "rate_limit_exempt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    dealerpoker.server.settings.SettingsError: rate_limit_exempt: 'localhost' is not an IP address ...
    """
    try:
        return ipaddress.ip_network(entry.strip(), strict=False)
    except ValueError:
        raise SettingsError(f"{setting}: {entry!r} is not an IP address or network (10.0.0.7, 10.0.0.0/24)") \
            from None


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


def _rtp_bounds(text: str) -> tuple[Fraction, Fraction]:
    """``"0.85,0.995"`` -> the exact fractions (checked by ``Settings``)."""
    parts = [part.strip() for part in text.split(",")]
    try:
        low, high = (Fraction(part) for part in parts)
    except (ValueError, ZeroDivisionError):
        raise SettingsError(
            f"DEALERPOKER_RTP_BOUNDS: expected LEAST,MOST such as 0.85,0.995, got {text!r}") from None
    return low, high


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
