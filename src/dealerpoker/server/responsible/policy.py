"""Responsible gaming, the rules themselves (pure: no database, no clock; time is an argument).

A **profile** (the deployment's, or an operator's) says how often the reality check comes, how
long a raised limit waits before it applies, how long a pause ends a play session, and the
least time between two rounds. A player's **state** (one JSON document) holds their limits,
as they and their operator set them, a restriction the operator (or the player, taking a
break) put on them, when their play session started and when they last answered the reality
check.

Limits: loss and stake per day (the last 24 hours) and per play session, in minor units of
the player's currency, and the session's length in minutes. The lowest of the player's and
the operator's applies. A player's lower limit applies at once; a higher one (or none) only
after the profile's cooling-off time, while the old one still holds. The operator's apply at
once either way.

A round is counted at the most it can take (``games.payments.most_at_stake``), so a round
once opened can be played out: limits, restrictions and the reality check refuse the opening
bets of a new round, never a decision of an open one.

>>> profile = Profile(cooling_off_hours=24)
>>> state = PlayerState.empty()
>>> state = state.set_limit("loss_day", 5000, source="player", now=T0, profile=profile)
>>> state.limits(T0)["loss_day"]
5000
>>> state = state.set_limit("loss_day", 9000, source="player", now=T0, profile=profile)
>>> state.limits(T0)["loss_day"], state.limits(T0 + timedelta(hours=24))["loss_day"]  # raised a day later
(5000, 9000)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from dealerpoker.errors import DealerPokerError

LIMIT_KINDS = ("loss_day", "loss_session", "stake_day", "stake_session", "session_minutes")
"""Money limits are minor units of the player's currency; ``session_minutes`` is minutes."""
SOURCES = ("player", "operator")
RESTRICTIONS = ("self_exclusion", "cool_off")
DAY = timedelta(hours=24)
T0 = datetime(2026, 1, 1, tzinfo=UTC)
"""A fixed time for the examples and tests."""


class ResponsibleGamingError(DealerPokerError, ValueError):
    """A bet the player's limits, restriction or the profile do not allow now (``reason``)."""

    code = "responsible_gaming"
    status = 403

    def __init__(self, message: str | None = None, *, reason: str = "", key: str | None = None,
                 jurisdiction: str = "", **params: Any) -> None:
        super().__init__(message, key=key or (f"error.rg.{reason}" if reason else None), **params)
        self.reason = reason
        self.jurisdiction = jurisdiction
        """The jurisdiction whose profile set the rule (pace, reality check), when one did."""

    def details(self) -> dict[str, Any]:
        found: dict[str, Any] = {"reason": self.reason}
        if self.jurisdiction:
            found.update(rule=self.reason, jurisdiction=self.jurisdiction)
        return found


class InvalidLimitError(DealerPokerError, ValueError):
    """A limit or restriction that cannot be set (the message names the entry)."""

    code = "invalid_limit"


@dataclass(frozen=True, slots=True)
class Profile:
    """What a deployment (or an operator, for its players) requires."""

    reality_check_minutes: int = 0
    """Every this many minutes of a play session, the table pauses between rounds until the
    player answers the reality check (0: never)."""
    cooling_off_hours: float = 24.0
    """How long a player's raised (or removed) limit waits before it applies."""
    session_gap_minutes: int = 30
    """A play session ends after this long without a round; the next round starts a new one."""
    min_round_seconds: float = 0.0
    """The least time between the starts of two of a player's rounds (0: none)."""
    autoplay: bool = False
    """Whether the page may play rounds by itself (it never does; the server has no autoplay)."""
    fast_play: bool = False
    """Whether the page may take the next action before a step's animations end (else it shows
    each step whole, with reduced motion too: fast play is the pace, not the look)."""
    jurisdiction: str = ""
    """The jurisdiction profile this profile was made stricter for (``server.jurisdiction``;
    empty: none), named in the refusals its rules make."""
    tracks_sessions: bool = False
    """Whether every round marks the play session even with no check to make: the player's market
    has the page show the session's time or net position (``display``), which count from it."""

    def __post_init__(self) -> None:
        for name in ("reality_check_minutes", "session_gap_minutes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 24 * 60:
                raise InvalidLimitError(f"{name}: expected whole minutes 0..1440, got {value!r}")
        if self.session_gap_minutes < 1:
            raise InvalidLimitError(
                f"session_gap_minutes: expected at least 1, got {self.session_gap_minutes}")
        if not 0 <= self.cooling_off_hours <= 24 * 365:
            raise InvalidLimitError(f"cooling_off_hours: expected 0..8760, got {self.cooling_off_hours!r}")
        for flag in ("autoplay", "fast_play"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidLimitError(f"{flag}: expected true or false, got {getattr(self, flag)!r}")
        if not 0 <= self.min_round_seconds <= 3600:
            raise InvalidLimitError(f"min_round_seconds: expected 0..3600, got {self.min_round_seconds!r}")

    @property
    def checks_every_round(self) -> bool:
        """Whether every round must be checked, limits or not (a reality check, a pace, or a
        session the page shows)."""
        return self.reality_check_minutes > 0 or self.min_round_seconds > 0 or self.tracks_sessions

    def to_dict(self) -> dict[str, Any]:
        return {"reality_check_minutes": self.reality_check_minutes,
                "cooling_off_hours": self.cooling_off_hours,
                "session_gap_minutes": self.session_gap_minutes,
                "min_round_seconds": self.min_round_seconds,
                "autoplay": self.autoplay, "fast_play": self.fast_play,
                **({"jurisdiction": self.jurisdiction} if self.jurisdiction else {})}


@dataclass(frozen=True, slots=True)
class Usage:
    """What the player staked and got back in the last 24 hours and in this play session
    (open rounds count what they staked so far), and when their last round started."""

    day_staked: int = 0
    day_returned: int = 0
    session_staked: int = 0
    session_returned: int = 0
    last_round_at: datetime | None = None

    @property
    def day_loss(self) -> int:
        return max(0, self.day_staked - self.day_returned)

    @property
    def session_loss(self) -> int:
        return max(0, self.session_staked - self.session_returned)


def _time(text: Any) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if isinstance(text, str) else None


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def check_limit_value(kind: str, amount: Any) -> int | None:
    """A limit as given: an integer >= 1 (minor units, or minutes for ``session_minutes``) or
    None (no limit); anything else is an ``InvalidLimitError`` naming the limit."""
    if kind not in LIMIT_KINDS:
        raise InvalidLimitError(f"{kind}: unknown limit (limits: {', '.join(LIMIT_KINDS)})")
    if amount is None:
        return None
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
        raise InvalidLimitError(f"{kind}: expected a whole number >= 1 or null (no limit), got {amount!r}")
    if kind == "session_minutes" and amount > 24 * 60:
        raise InvalidLimitError(f"{kind}: expected at most 1440 minutes, got {amount}")
    return amount


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One player's responsible-gaming document (stored as JSON on their row)."""

    document: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def empty(cls) -> PlayerState:
        return cls({})

    @classmethod
    def from_json(cls, text: str | None) -> PlayerState:
        return cls({} if not text else json.loads(text))

    def to_json(self) -> str:
        return json.dumps(self.document, sort_keys=True, separators=(",", ":"))

    @property
    def is_empty(self) -> bool:
        return not self.document

    # ----- limits ---------------------------------------------------------------------------
    def _entry(self, kind: str, source: str) -> Mapping[str, Any]:
        entry: Mapping[str, Any] = self.document.get("limits", {}).get(kind, {}).get(source, {})
        return entry

    def limit_of(self, kind: str, source: str, now: datetime) -> int | None:
        """The limit ``source`` set on ``kind`` as it applies at ``now`` (a raise whose
        cooling-off has passed applies)."""
        entry = self._entry(kind, source)
        due = _time(entry.get("pending_at"))
        value = entry.get("pending") if due is not None and due <= now else entry.get("amount")
        return None if value is None else int(value)

    def pending_of(self, kind: str, source: str, now: datetime) -> tuple[int | None, datetime] | None:
        """A raise (or removal: None) still waiting for its cooling-off, and when it applies."""
        entry = self._entry(kind, source)
        due = _time(entry.get("pending_at"))
        if due is None or due <= now:
            return None
        pending = entry.get("pending")
        return (None if pending is None else int(pending)), due

    def limit_view(self, kind: str, source: str, now: datetime) -> dict[str, Any]:
        """What ``source``'s limit on ``kind`` is at ``now`` (``amount``, None: none), and a raise
        or removal waiting for its cooling-off (``pending``, ``pending_at``): the before and
        after of each change in the log."""
        view: dict[str, Any] = {"amount": self.limit_of(kind, source, now)}
        pending = self.pending_of(kind, source, now)
        if pending is not None:
            view.update(pending=pending[0], pending_at=_text(pending[1]))
        return view

    def limits(self, now: datetime) -> dict[str, int]:
        """Every limit that applies at ``now``: the lowest of the player's and the operator's."""
        found: dict[str, int] = {}
        for kind in LIMIT_KINDS:
            values = [v for v in (self.limit_of(kind, s, now) for s in SOURCES) if v is not None]
            if values:
                found[kind] = min(values)
        return found

    def set_limit(self, kind: str, amount: int | None, *, source: str, now: datetime,
                  profile: Profile) -> PlayerState:
        """``source`` sets ``kind`` to ``amount`` (None: no limit). A player's lower limit applies
        at once; a higher one or none waits ``profile.cooling_off_hours`` (the current one holds
        meanwhile). An operator's applies at once."""
        amount = check_limit_value(kind, amount)
        if source not in SOURCES:
            raise InvalidLimitError(f"limit source: expected one of {', '.join(SOURCES)}, got {source!r}")
        current = self.limit_of(kind, source, now)
        lowering = amount is not None and (current is None or amount <= current)
        if source == "operator" or lowering:
            entry: dict[str, Any] = {"amount": amount, "set_at": _text(now)}
        else:
            due = now + timedelta(hours=profile.cooling_off_hours)
            entry = {"amount": current, "set_at": _text(now), "pending": amount, "pending_at": _text(due)}
        limits = {k: dict(v) for k, v in self.document.get("limits", {}).items()}
        limits.setdefault(kind, {})[source] = entry
        return PlayerState({**self.document, "limits": limits})

    # ----- restrictions, session, reality check ---------------------------------------------
    def restriction(self, now: datetime) -> Mapping[str, Any] | None:
        """The self-exclusion or cool-off in force at ``now`` (None when none is)."""
        found: Mapping[str, Any] | None = self.document.get("restriction")
        if not found:
            return None
        until = _time(found.get("until"))
        return None if until is not None and until <= now else found

    def restrict(self, kind: str, until: datetime | None, *, by: str, now: datetime,
                 reason: str | None = None) -> PlayerState:
        """Put on a self-exclusion or cool-off until ``until`` (None: until lifted), or lift it
        (``kind`` "none"). A player's own break can only be made longer, never shortened."""
        if kind == "none":
            return PlayerState({k: v for k, v in self.document.items() if k != "restriction"})
        if kind not in RESTRICTIONS:
            kinds = ", ".join((*RESTRICTIONS, "none"))
            raise InvalidLimitError(f"kind: expected one of {kinds}, got {kind!r}")
        if until is not None and until <= now:
            raise InvalidLimitError(f"until: {_text(until)} is not in the future")
        entry: dict[str, Any] = {"kind": kind, "until": None if until is None else _text(until),
                                 "set_at": _text(now), "by": by}
        if reason:
            entry["reason"] = reason
        return PlayerState({**self.document, "restriction": entry})

    def session_start(self, usage: Usage, now: datetime, profile: Profile) -> tuple[datetime, bool]:
        """When the play session a round opened at ``now`` belongs to started, and whether that
        round starts a new one (nothing played for ``profile.session_gap_minutes``)."""
        gap = timedelta(minutes=profile.session_gap_minutes)
        stored = _time(self.document.get("session_started_at"))
        if usage.last_round_at is None or now - usage.last_round_at >= gap or stored is None:
            return now, True
        return stored, False

    def started_session(self, now: datetime) -> PlayerState:
        return PlayerState({**self.document, "session_started_at": _text(now)})

    def reality_check_at(self, session_start: datetime, profile: Profile) -> datetime | None:
        """When the next reality check is due (None: the profile has none)."""
        if profile.reality_check_minutes <= 0:
            return None
        answered = _time(self.document.get("reality_check_answered_at"))
        since = session_start if answered is None or answered < session_start else answered
        return since + timedelta(minutes=profile.reality_check_minutes)

    def answered_reality_check(self, now: datetime) -> PlayerState:
        return PlayerState({**self.document, "reality_check_answered_at": _text(now)})


def check_opening(state: PlayerState, profile: Profile, usage: Usage, at_stake: int, now: datetime,
                  session_start: datetime) -> None:
    """Raise ``ResponsibleGamingError`` naming the reason when a round that can take
    ``at_stake`` must not open at ``now``; in this order: a restriction, the pace between
    rounds, the session's time limit, a reality check due, the loss and stake limits."""
    restriction = state.restriction(now)
    if restriction is not None:
        kind, until = str(restriction["kind"]), restriction.get("until")
        if until is None:
            raise ResponsibleGamingError(reason=kind, key=f"error.rg.{kind}_open")
        raise ResponsibleGamingError(reason=kind, until=until)
    if profile.min_round_seconds and usage.last_round_at is not None:
        wait = profile.min_round_seconds - (now - usage.last_round_at).total_seconds()
        if wait > 0:
            raise ResponsibleGamingError(reason="too_fast", seconds=int(-(-wait // 1)),
                                         min_seconds=profile.min_round_seconds,
                                         jurisdiction=profile.jurisdiction)
    limits = state.limits(now)
    minutes = limits.get("session_minutes")
    if minutes is not None and now - session_start >= timedelta(minutes=minutes):
        raise ResponsibleGamingError(reason="session_time", limit_minutes=minutes,
                                     break_minutes=profile.session_gap_minutes)
    due = state.reality_check_at(session_start, profile)
    if due is not None and now >= due:
        played = int((now - session_start).total_seconds() // 60)
        raise ResponsibleGamingError(reason="reality_check", minutes=played,
                                     jurisdiction=profile.jurisdiction)
    checks = (("loss_day", usage.day_loss), ("loss_session", usage.session_loss),
              ("stake_day", usage.day_staked), ("stake_session", usage.session_staked))
    for kind, used in checks:
        limit = limits.get(kind)
        if limit is not None and used + at_stake > limit:
            raise ResponsibleGamingError(reason=kind, limit=limit, used=used, at_stake=at_stake,
                                         left=max(0, limit - used))
