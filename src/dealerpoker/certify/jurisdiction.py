"""The pack for one jurisdiction: its profile (``dealerpoker.jurisdictions``) as a page, and the
rules it approves: only its games, only the approved paytables (rules fingerprints) when it lists
them, the rules sheets in its languages."""

from __future__ import annotations

import json
from collections.abc import Sequence
from html import escape
from typing import Any

from dealerpoker.certify.html import page, table
from dealerpoker.games.rules import Rules
from dealerpoker.jurisdictions import Jurisdiction
from dealerpoker.messages import LANGUAGES


def approved(profile: Jurisdiction, rules: Rules) -> str | None:
    """Why the profile does not approve ``rules`` (``None``: it does)."""
    if rules.game not in profile.games:
        return f"{profile.id} does not offer {rules.game} (games: {', '.join(profile.games)})"
    paytables = profile.value("paytables")
    fingerprint = rules.fingerprint()
    if paytables != "any" and not any(fingerprint.startswith(fp) for fp in paytables):
        return f"{profile.id} approves only the paytables {', '.join(paytables)}, not {fingerprint[:16]}"
    return None


def languages(profile: Jurisdiction) -> Sequence[str]:
    wanted = profile.value("languages") if "languages" in profile.settings else list(LANGUAGES)
    chosen = [language for language in LANGUAGES if language in wanted]
    return chosen or ["en"]


def profile_document(profile: Jurisdiction) -> dict[str, Any]:
    return {"kind": "jurisdiction-profile", "id": profile.id, "name": profile.name,
            "regulator": profile.regulator, "version": profile.version, "source": profile.source,
            "settings": {name: setting.to_dict() for name, setting in profile.settings.items()}}


def profile_html(document: dict[str, Any]) -> str:
    rows = []
    for name, setting in document["settings"].items():
        status = "unconfirmed: " + setting.get("note", "") if setting.get("unconfirmed") else "confirmed"
        rows.append([escape(name), f"<code>{escape(json.dumps(setting['value'], ensure_ascii=False))}</code>",
                     escape(setting["clause"]), escape(status)])
    body = [f"<h1>Jurisdiction profile — {escape(document['name'])} ({escape(document['id'])})</h1>",
            f'<p class="meta">Regulator: {escape(document["regulator"])}; profile version '
            f"{escape(document['version'])}; source {escape(document['source'])}. The server enforces these "
            "settings for players launched in this jurisdiction; each cites its clause.</p>",
            table(["setting", "value", "clause", "status"], rows, raw=True)]
    return page(f"Jurisdiction profile — {document['id']}", "\n".join(body),
                footer="From dealerpoker/jurisdictions/profiles (docs/operators.md).")
