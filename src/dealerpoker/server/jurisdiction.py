"""Which jurisdiction profile each player plays under, and the server's checks of it.

An operator's player plays under the profile of the jurisdiction their newest launch named
(``operator_players.jurisdiction``; the operator's own profile of it where it gives one); the
server's own players, demo launches naming none and launches by an operator that lists no
jurisdictions play under the deployment's default (``Settings.default_jurisdiction``, the
permissive ``default`` unless set). Every refusal names the rule (the profile's setting) and the
jurisdiction (``JurisdictionRefusedError``, ``403 jurisdiction``).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from sqlalchemy import select

from dealerpoker.jurisdictions import DEFAULT, Jurisdiction, JurisdictionRefusedError, check_round, shipped
from dealerpoker.server.db import Database
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.responsible.policy import Profile
from dealerpoker.server.schema import operator_players
from dealerpoker.tables.config import TableConfig

__all__ = ["Jurisdictions", "check_launch", "check_table", "responsible_profile"]

_IN_CHUNK = 500  # players per query (SQLite's older builds take at most 999 parameters)


def _refuse(profile: Jurisdiction, rule: str, why: str) -> JurisdictionRefusedError:
    return JurisdictionRefusedError(f"{rule}: {why}", rule=rule, jurisdiction=profile.id)


def check_table(profile: Jurisdiction, table: TableConfig) -> None:
    """Refuse a seat at ``table`` for a player of ``profile`` (the table's markets, its game, its
    mode, its paytable)."""
    if table.jurisdictions and profile.id not in table.jurisdictions:
        raise _refuse(
            profile,
            "table_jurisdictions",
            f"table {table.id} serves {', '.join(table.jurisdictions)}, not {profile.id}",
        )
    mode = "studio" if table.dealing == "studio" else "live"
    broken = check_round(
        profile.enforced(),
        game=table.game,
        mode=mode,
        rules_fingerprint=table.rules.fingerprint(),
        stake=0,
        currency="",
    )
    if broken:
        raise _refuse(profile, *broken[0])


def check_launch(profile: Jurisdiction, currency: str, game: str | None, table: TableConfig | None) -> None:
    """Refuse a launch ``profile`` does not allow: the currency, the game or the table."""
    currencies = profile.value("currencies")
    if currencies and currency not in currencies:
        raise _refuse(
            profile,
            "currencies",
            f"{currency} is not offered in {profile.id} (currencies: {', '.join(currencies)})",
        )
    if table is not None:
        check_table(profile, table)
    elif game is not None:
        broken = [
            b
            for b in check_round(
                profile.enforced(), game=game, mode="solo", rules_fingerprint="", stake=0, currency=""
            )
            if b[0] in ("games", "modes")
        ]
        if broken:
            raise _refuse(profile, *broken[0])


def shows_session(profile: Jurisdiction) -> bool:
    """Whether ``profile`` has the page show the play session's time or net position."""
    display = profile.value("display")
    return bool(display["session_time"] or display["net_position"])


def responsible_profile(base: Profile, profile: Jurisdiction) -> Profile:
    """The responsible-gaming profile a player plays under in ``profile``'s market: the
    operator's (or deployment's) ``base``, made as strict as the market requires (the longer
    pace between rounds, a mandatory reality check at most its interval, fast play only where
    both allow it)."""
    reality = profile.value("reality_check")
    minutes = base.reality_check_minutes
    if reality["mode"] == "mandatory" and (minutes == 0 or minutes > reality["minutes"]):
        minutes = reality["minutes"]
    return replace(
        base,
        min_round_seconds=max(base.min_round_seconds, profile.min_round_seconds),
        reality_check_minutes=minutes,
        fast_play=base.fast_play and profile.fast_play,
        tracks_sessions=base.tracks_sessions or shows_session(profile),
        # the permissive default has no rules of its own to name
        jurisdiction=base.jurisdiction if profile.id == DEFAULT else profile.id,
    )


class Jurisdictions:
    """The profiles in force: shipped, operators' own, and each player's."""

    def __init__(
        self, database: Database, operators: Mapping[str, Operator], *, default: str = DEFAULT
    ) -> None:
        self.database = database
        self.operators = operators
        self.shipped = shipped()
        if default not in self.shipped:
            raise ValueError(
                f"default jurisdiction {default!r}: no such profile "
                f"(profiles: {', '.join(sorted(self.shipped))})"
            )
        self.default = self.shipped[default]
        self.approvals: Mapping[str, frozenset[str]] = {}
        """Rules fingerprint -> the jurisdictions its back-office paytable versions are approved
        for (a fingerprint not here is not restricted); kept by ``backoffice.rules_changes``."""

    def known(self) -> list[str]:
        """Every jurisdiction a profile exists for: shipped, and the operators' own."""
        codes = set(self.shipped)
        for operator in self.operators.values():
            codes |= set(operator.profiles)
        return sorted(codes)

    def for_launch(self, operator: Operator, code: str | None) -> Jurisdiction:
        """The profile a launch by ``operator`` into ``code`` plays under, or the refusal."""
        if code is None:
            if operator.jurisdictions:
                raise JurisdictionRefusedError(
                    f"jurisdiction: required: operator {operator.id} serves "
                    f"{', '.join(operator.jurisdictions)}",
                    rule="jurisdictions",
                    jurisdiction="",
                )
            return self.default
        profile = operator.profiles.get(code)
        if profile is None:
            served = ", ".join(operator.jurisdictions) or "none"
            raise JurisdictionRefusedError(
                f"jurisdiction {code}: operator {operator.id} may not launch players there "
                f"(its jurisdictions: {served})",
                rule="jurisdictions",
                jurisdiction=code,
            )
        return profile

    def profile(self, operator_id: str | None, code: str | None) -> Jurisdiction:
        operator = self.operators.get(operator_id) if operator_id is not None else None
        if operator is not None and code is not None and code in operator.profiles:
            return operator.profiles[code]
        return self.default

    async def of(self, player_id: str) -> Jurisdiction:
        """The profile ``player_id`` plays under now (their newest launch's)."""
        if not self.operators:
            return self.default
        async with self.database.reading() as connection:
            row = (
                await connection.execute(
                    select(operator_players.c.operator_id, operator_players.c.jurisdiction).where(
                        operator_players.c.player_id == player_id
                    )
                )
            ).first()
        return self.default if row is None else self.profile(str(row.operator_id), row.jurisdiction)

    async def stored_of(self, player_ids: Collection[str]) -> dict[str, str]:
        """What each player's seat keeps of the profile they play under now (``stored``), read in
        one query: a live round's new seats at the close of betting."""
        found = {player: self.default for player in player_ids}
        if self.operators and found:
            players = list(found)
            async with self.database.reading() as connection:
                for start in range(0, len(players), _IN_CHUNK):
                    rows = await connection.execute(
                        select(
                            operator_players.c.player_id,
                            operator_players.c.operator_id,
                            operator_players.c.jurisdiction,
                        ).where(operator_players.c.player_id.in_(players[start : start + _IN_CHUNK]))
                    )
                    for row in rows:
                        found[str(row.player_id)] = self.profile(str(row.operator_id), row.jurisdiction)
        return {player: self.stored(profile) for player, profile in found.items()}

    def check(
        self,
        profile: Jurisdiction,
        *,
        game: str,
        mode: str,
        rules_fingerprint: str,
        stake: int,
        currency: str,
    ) -> None:
        """Refuse a round ``profile`` does not allow (the first rule it breaks, named): its own
        settings, then the approvals of the paytable version (``approvals``)."""
        broken = check_round(
            profile.enforced(),
            game=game,
            mode=mode,
            rules_fingerprint=rules_fingerprint,
            stake=stake,
            currency=currency,
        )
        if broken:
            rule, why = broken[0]
            raise JurisdictionRefusedError(f"{rule}: {why}", rule=rule, jurisdiction=profile.id)
        approved = self.approvals.get(rules_fingerprint)
        # Play money has no regulator to approve a paytable: its default profile plays any.
        if approved is not None and profile.id != DEFAULT and profile.id not in approved:
            named = ", ".join(sorted(approved)) or "none"
            raise _refuse(
                profile,
                "paytables",
                f"paytable version {rules_fingerprint[:16]} is not approved for {profile.id} "
                f"(approved for: {named})",
            )

    @staticmethod
    def refuse_unless(allowed: bool, profile: Jurisdiction, rule: str, why: str) -> None:
        if not allowed:
            raise JurisdictionRefusedError(
                f"{rule}: {why} in {profile.id}", rule=rule, jurisdiction=profile.id
            )

    @staticmethod
    def stored(profile: Jurisdiction) -> str:
        """What a round keeps of the profile it was played under (``rounds.jurisdiction``)."""
        return json.dumps(profile.enforced(), sort_keys=True, separators=(",", ":"))

    @staticmethod
    def loaded(text: str | None) -> dict[str, Any] | None:
        return None if not text else dict(json.loads(text))
