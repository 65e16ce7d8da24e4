"""The operator's half of a game launch: ``POST {game_url}/operator/v1/launch``, signed, server to
server (the secret never reaches the browser), and the address it answers made absolute."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urljoin, urlsplit

from dealerpoker.operator_signature import OPERATOR_HEADER, Scheme, request_target, sign_body, sign_request

GAMES = ("texas-bonus", "casino-holdem")
MODES = ("real", "demo")


class LaunchError(ValueError):
    """dealerpoker refused the launch or could not be reached; the message says which."""

    def __init__(self, message: str, status: int = 502, answer: Any = None) -> None:
        super().__init__(message)
        self.status, self.answer = status, answer


@dataclass(frozen=True)
class Launcher:
    game_url: str
    operator_id: str
    secret: str
    timeout: float = 10.0
    signature: Scheme = "request"
    _viewer: dict[str, str] = field(default_factory=dict, compare=False, repr=False)

    def body(self, *, player: str, currency: str, language: str, token: str, mode: str, lobby_url: str,
             game: str | None = None, table: str | None = None, jurisdiction: str | None = None,
             cashier_url: str | None = None) -> bytes:
        """The launch request's raw body: ``game`` for solo play, or a live ``table``; the
        player's ``jurisdiction`` when the casino names one; its cashier's address."""
        fields: dict[str, Any] = {"player": player, "currency": currency, "language": language}
        fields |= {"game": game} if table is None else {"table": table}
        fields |= {"token": token, "mode": mode, "lobby_url": lobby_url}
        if cashier_url is not None:
            fields["cashier_url"] = cashier_url
        if jurisdiction is not None:
            fields["jurisdiction"] = jurisdiction
        return json.dumps(fields).encode()

    def launch(self, raw: bytes) -> dict[str, Any]:
        """dealerpoker's answer ``{"url", "launch_token", "expires_at"}``, ``url`` made absolute.
        Blocking (urllib): run it in a thread from the event loop."""
        url = urljoin(self.game_url.rstrip("/") + "/", "operator/v1/launch")
        request = urllib.request.Request(url, data=raw, method="POST",
                                         headers={"Content-Type": "application/json",
                                                  **self.signed_headers("POST", url, raw)})
        answer = self._signed(request, "the launch")
        if not isinstance(answer, dict) or not isinstance(answer.get("url"), str):
            raise LaunchError("dealerpoker's launch answer has no url", answer=answer)
        return answer | {"url": urljoin(self.game_url.rstrip("/") + "/", answer["url"])}

    def transactions(self, since: str, until: str) -> dict[str, Any]:
        """dealerpoker's record of this operator's wallet transactions created in [since, until):
        ``GET /operator/v1/transactions`` (the signature covers the path and its query; a GET has
        no body). Blocking (urllib)."""
        query = urlencode({"since": since, "until": until})
        url = urljoin(self.game_url.rstrip("/") + "/", f"operator/v1/transactions?{query}")
        request = urllib.request.Request(url, headers=self.signed_headers("GET", url, b""))
        found = self._signed(request, "the transactions list")
        if not isinstance(found, dict) or not isinstance(found.get("transactions"), list):
            raise LaunchError("dealerpoker's transactions answer has no transactions list")
        return found

    def operator_call(self, method: str, path: str, raw: bytes = b"") -> Any:
        """A signed request to dealerpoker's operator API (``path`` under ``/operator/v1/``, e.g.
        ``campaigns``), its JSON answer; :class:`LaunchError` with dealerpoker's answer if refused.
        Blocking (urllib)."""
        url = urljoin(self.game_url.rstrip("/") + "/", f"operator/v1/{path}")
        request = urllib.request.Request(url, data=raw if method != "GET" else None, method=method,
                                         headers={"Content-Type": "application/json",
                                                  **self.signed_headers(method, url, raw)})
        return self._signed(request, f"{method} /operator/v1/{path}")

    def signed_headers(self, method: str, url: str, raw: bytes) -> dict[str, str]:
        """``X-Operator-Id`` and the signature of a request to ``url`` (the old scheme signed the
        body alone, the query string for a GET)."""
        parts = urlsplit(url)
        if self.signature == "body-only":
            return {OPERATOR_HEADER: self.operator_id,
                    "X-Signature": sign_body(self.secret, raw or parts.query.encode())}
        return {OPERATOR_HEADER: self.operator_id,
                **sign_request(self.secret, method, request_target(parts.path, parts.query), raw)}

    def _signed(self, request: urllib.request.Request, what: str) -> Any:
        """The JSON answer to a signed request; :class:`LaunchError` naming ``what`` if refused or lost."""
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as refused:
            detail = refused.read().decode(errors="replace")[:500]
            message = f"dealerpoker refused {what} ({refused.code}): {detail}"
            raise LaunchError(message, status=refused.code if refused.code in (404, 409, 422) else 502,
                              answer=detail) from None
        except (OSError, ValueError) as failed:
            raise LaunchError(f"dealerpoker at {self.game_url} did not answer {what}: {failed}") from None

    def tables(self) -> list[dict[str, Any]]:
        """dealerpoker's live tables (``GET /api/tables``), for the page's table list. dealerpoker
        lists them to any session: the operator opens a demo session of its own once (``POST
        /api/session``, as any client may) and lists with it."""
        base = self.game_url.rstrip("/") + "/"
        try:
            if "token" not in self._viewer:
                opened = urllib.request.Request(urljoin(base, "api/session"), data=b"{}", method="POST",
                                                headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(opened, timeout=self.timeout) as response:
                    self._viewer["token"] = json.loads(response.read())["token"]
            listing = urllib.request.Request(urljoin(base, "api/tables"),
                                             headers={"Authorization": f"Bearer {self._viewer['token']}"})
            with urllib.request.urlopen(listing, timeout=self.timeout) as response:
                found = json.loads(response.read()).get("tables", [])
        except urllib.error.HTTPError as refused:
            self._viewer.clear()  # a session the server forgot (restarted): a new one next time
            raise LaunchError(f"dealerpoker at {self.game_url} did not list its tables ({refused.code})",
                              ) from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as failed:
            raise LaunchError(f"dealerpoker at {self.game_url} did not list its tables: {failed}") from None
        return [{"id": table.get("id"), "title": table.get("title"), "game": table.get("game")}
                for table in found if isinstance(table, dict)]
