"""The reference operator's web server (Starlette): the signed wallet, the loopback-only
administration and casino page, and the fault injection around the wallet.

Wallet: ``POST /balance``, ``/bet``, ``/win``, ``/rollback``; the body is JSON, the request signed
(:mod:`dealerpoker.operator_signature`: a missing or wrong signature, a stale timestamp or a nonce
seen before: 401, nothing read or changed); a malformed body: 422
with ``{"status": "ERROR", "error": ...}`` naming the problem; else 200 with the answer, itself
signed with ``X-Signature`` (HMAC-SHA256 of its body) so a client may check it came from the
operator.

Administration (unsigned, answered only to loopback clients; 403 otherwise): ``GET /`` (the
casino page), ``GET /tables``, ``POST /launch``, ``GET|POST /admin/players``,
``POST /admin/sessions``, ``DELETE /admin/sessions/{token}``, ``GET /admin/transactions``,
``GET|PUT /admin/faults``, ``GET /admin/books`` (wins booked apart: real and promotional),
``GET|POST /admin/campaigns[/{id}[/grants|/cancel]]`` (free bets, forwarded to dealerpoker,
signed), ``GET /healthz``.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import logging
import re
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from dealerpoker.operator_demo.faults import Faults, FaultsError
from dealerpoker.operator_demo.launch import GAMES, MODES, Launcher, LaunchError
from dealerpoker.operator_demo.ledger import Answer, Ledger, LedgerError
from dealerpoker.operator_demo.protocol import ERROR, KINDS, BadRequest, Kind, parse
from dealerpoker.operator_demo.reconcile import compare
from dealerpoker.operator_signature import (
    SIGNATURE_HEADER,
    NonceMemory,
    RequestSignatureError,
    Scheme,
    asgi_target,
    is_request_signed,
    sign_body,
    verify_body,
    verify_request,
)

log = logging.getLogger("dealerpoker.operator_demo")
Endpoint = Callable[[Request], Awaitable[Response]]


class _Dropped(Exception):
    """Raised after an answer's headers went out: the connection is closed without its body."""


class DroppedAnswer(Response):
    """Sends the answer's status line and headers, then drops the connection: the client reads a
    truncated answer (a dropped connection), whatever the ledger did."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        raise _Dropped


class _Drops:
    """Outermost ASGI layer: a dropped answer ends the request quietly (the server closes the
    connection of a response started but not completed)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await self.app(scope, receive, send)
        except _Dropped:
            return


def _error(status_code: int, message: str) -> JSONResponse:
    return JSONResponse({"status": ERROR, "balance": 0, "error": message}, status_code)


def _loopback_only(endpoint: Endpoint) -> Endpoint:
    async def guarded(request: Request) -> Response:
        host = request.client.host if request.client else ""
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            return JSONResponse({"error": "the administration answers loopback clients only"}, 403)
        return await endpoint(request)

    return guarded


async def _json_object(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadRequest("the body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    return body


def _text(body: dict[str, Any], name: str, default: str | None = None) -> str:
    value = body.get(name, default)
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"{name} must be a non-empty string")
    return value


def _count(body: dict[str, Any], name: str, default: int) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadRequest(f"{name} must be an integer, 0 or more")
    return value


def _day(text: str | None, default: datetime.date, name: str) -> datetime.date:
    if text is None:
        return default
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise BadRequest(f"{name} must be a day, YYYY-MM-DD") from None


def _epoch(day: datetime.date) -> float:
    return datetime.datetime.combine(day, datetime.time(), datetime.UTC).timestamp()


def create_app(ledger: Ledger, *, secret: str, faults: Faults, launcher: Launcher,
               signature: Scheme = "request") -> Starlette:
    """The operator's app over ``ledger``, signing with ``secret`` (shared with dealerpoker);
    ``signature="body-only"`` also takes the old body-only signatures."""
    nonces = NonceMemory()  # one process: its own memory is every nonce it has seen

    def refusal(request: Request, raw: bytes) -> str | None:
        """Why a wallet request's signature is refused, or None."""
        if signature == "body-only" and not is_request_signed(request.headers):
            given = request.headers.get(SIGNATURE_HEADER)
            return None if verify_body(secret, raw, given) else "missing or wrong X-Signature"
        try:
            signed = verify_request(secret, request.method, asgi_target(request.scope), raw, request.headers)
        except RequestSignatureError as problem:
            return str(problem)
        if not nonces.first_use(signed.nonce):
            return f"X-Signature-Nonce {signed.nonce!r} was used before (a replayed request)"
        return None

    def wallet(kind: Kind) -> Endpoint:
        async def endpoint(request: Request) -> Response:
            raw = await request.body()
            problem = refusal(request, raw)
            if problem is not None:
                log.warning("%s refused: %s", kind, problem)
                return _error(401, problem)
            try:
                call = parse(kind, raw)
            except BadRequest as problem:
                return _error(422, str(problem))
            fault = faults.draw()
            if fault == "fail":
                log.info("%s %s: injected ERROR, not applied", kind, call.transaction_id or call.player)
                return _answer(Answer(ERROR, ledger.balance_of(call).balance, "injected failure (fail-rate)"))
            if fault == "timeout":
                log.info("%s %s: injected timeout, held %.1f s, not applied", kind, call.transaction_id,
                         faults.timeout_seconds)
                await asyncio.sleep(faults.timeout_seconds)
                return DroppedAnswer(status_code=200, headers={"content-length": "2"})
            answer = ledger.balance_of(call) if kind == "balance" else ledger.apply(call)
            log.info("%s %s %s %s %s -> %s %s%s", kind, call.transaction_id, call.player, call.amount,
                     call.currency, answer.status, answer.balance,
                     " (answer dropped after commit)" if fault == "drop" else "")
            if fault == "drop":
                return DroppedAnswer(status_code=200, headers={"content-length": "2"})
            return _answer(answer)

        return endpoint

    def _answer(answer: Answer) -> Response:
        body = json.dumps(answer.to_json()).encode()
        return Response(body, 200, {SIGNATURE_HEADER: sign_body(secret, body)}, media_type="application/json")

    async def players(request: Request) -> Response:
        if request.method == "GET":
            return JSONResponse({"players": ledger.balances()})
        try:
            body = await _json_object(request)
            player, currency = _text(body, "player"), _text(body, "currency", "EUR")
            balance = _count(body, "balance", 0)
            ledger.create_account(player, currency, balance)
        except BadRequest as problem:
            return JSONResponse({"error": str(problem)}, 422)
        except LedgerError as problem:
            return JSONResponse({"error": str(problem)}, 409)
        token = ledger.open_session(player)
        return JSONResponse({"player": player, "currency": currency, "balance": balance, "token": token}, 201)

    async def sessions(request: Request) -> Response:
        try:
            if request.method == "DELETE":
                ledger.end_session(request.path_params["token"])
                return Response(status_code=204)
            player = _text(await _json_object(request), "player")
            return JSONResponse({"token": ledger.open_session(player)}, 201)
        except BadRequest as problem:
            return JSONResponse({"error": str(problem)}, 422)
        except LedgerError as problem:
            return JSONResponse({"error": str(problem)}, 404)

    async def transactions(request: Request) -> Response:
        query = request.query_params
        unknown = set(query) - {"player", "after", "limit"}
        if unknown:
            return JSONResponse({"error": f"unknown query parameter {sorted(unknown)[0]!r}"}, 422)
        try:
            after, limit = int(query.get("after", "0")), int(query.get("limit", "1000"))
        except ValueError:
            return JSONResponse({"error": "after and limit must be integers"}, 422)
        if not 1 <= limit <= 100_000:
            return JSONResponse({"error": "limit must be between 1 and 100000"}, 422)
        return JSONResponse({"transactions": ledger.transactions(query.get("player"), after, limit)})

    async def fault_settings(request: Request) -> Response:
        if request.method == "PUT":
            try:
                faults.set(**await _json_object(request))
            except (BadRequest, FaultsError) as problem:
                return JSONResponse({"error": str(problem)}, 422)
        return JSONResponse(faults.to_json())

    async def page(request: Request) -> Response:
        html = resources.files("dealerpoker.operator_demo").joinpath("page.html").read_text()
        return HTMLResponse(html.replace("{{OPERATOR_ID}}", launcher.operator_id)
                            .replace("{{GAME_URL}}", launcher.game_url))

    async def tables(request: Request) -> Response:
        try:
            return JSONResponse({"tables": await asyncio.to_thread(launcher.tables)})
        except LaunchError as failed:
            return JSONResponse({"tables": [], "error": str(failed)})

    async def launch(request: Request) -> Response:
        try:
            body = await _json_object(request)
            player, currency = _text(body, "player"), _text(body, "currency")
            language, mode = _text(body, "language", "en"), _text(body, "mode", "real")
            game, table = body.get("game"), body.get("table")
            if (game is None) == (table is None):
                raise BadRequest("give either a game or a live table")
            if game is not None and game not in GAMES:
                raise BadRequest(f"game must be one of {', '.join(GAMES)}")
            if table is not None:
                _text(body, "table")
            if mode not in MODES:
                raise BadRequest(f"mode must be one of {', '.join(MODES)}")
            jurisdiction = body.get("jurisdiction")
            if jurisdiction is not None:
                _text(body, "jurisdiction")
            token = ledger.open_session(player)
        except BadRequest as problem:
            return JSONResponse({"error": str(problem)}, 422)
        except LedgerError as problem:
            return JSONResponse({"error": str(problem)}, 404)
        raw = launcher.body(player=player, currency=currency, language=language, token=token, mode=mode,
                            lobby_url=str(request.base_url), game=game, table=table,
                            jurisdiction=jurisdiction, cashier_url=f"{request.base_url}cashier")
        try:
            answer = await asyncio.to_thread(launcher.launch, raw)
        except LaunchError as failed:
            return JSONResponse({"error": str(failed), "answer": failed.answer}, failed.status)
        return JSONResponse(answer | {"token": token})

    async def reconcile(request: Request) -> Response:
        """``?since=YYYY-MM-DD&until=YYYY-MM-DD`` (UTC days; default today): dealerpoker's list
        against this ledger."""
        query = request.query_params
        unknown = set(query) - {"since", "until"}
        if unknown:
            return JSONResponse({"error": f"unknown query parameter {sorted(unknown)[0]!r}"}, 422)
        today = datetime.datetime.now(datetime.UTC).date()
        try:
            since = _day(query.get("since"), today, "since")
            until = _day(query.get("until"), since + datetime.timedelta(days=1), "until")
            if until <= since:
                raise BadRequest("until must be after since")
        except BadRequest as problem:
            return JSONResponse({"error": str(problem)}, 422)
        try:
            theirs = await asyncio.to_thread(launcher.transactions, since.isoformat(), until.isoformat())
        except LaunchError as failed:
            return JSONResponse({"error": str(failed)}, 502)
        rows = theirs["transactions"]
        mine = ledger.by_ids([row["transaction_id"] for row in rows])
        period = ledger.created_between(_epoch(since), _epoch(until))
        return JSONResponse({"since": since.isoformat(), "until": until.isoformat(),
                             "transactions": len(rows), **compare(rows, mine, period),
                             "summary": theirs.get("summary")})

    async def cashier(request: Request) -> Response:
        """The casino's cashier (where the game's cashier request sends the player)."""
        return HTMLResponse('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cashier: '
                            'Demo Casino</title></head><body><h1 id="cashier">Cashier</h1><p>Deposits '
                            'and withdrawals would be here.</p><p><a href="/">Back to the casino</a></p>'
                            '</body></html>')

    async def books(request: Request) -> Response:
        """Wins booked apart: real money and promotional (free rounds), per player and campaign."""
        return JSONResponse(ledger.books())

    async def campaigns(request: Request) -> Response:
        """The casino's back office for free bets: each request forwarded to dealerpoker's
        operator API (``/operator/v1/campaigns...``), signed, server to server."""
        tail = request.path_params.get("tail", "")
        if tail and not re.fullmatch(r"[A-Za-z0-9_]{1,40}(/grants|/cancel)?", tail):
            return JSONResponse({"error": f"no such campaign request {tail!r}"}, 404)
        path = "campaigns" + (f"/{tail}" if tail else "")
        if request.url.query:
            path += f"?{request.url.query}"
        raw = b"" if request.method == "GET" else await request.body()
        try:
            answer = await asyncio.to_thread(launcher.operator_call, request.method, path, raw)
        except LaunchError as failed:
            return JSONResponse({"error": str(failed), "answer": failed.answer}, failed.status)
        return JSONResponse(answer)

    async def healthz(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    routes = [Route(f"/{kind}", wallet(kind), methods=["POST"]) for kind in KINDS]
    routes += [
        Route("/", _loopback_only(page)),
        Route("/healthz", healthz),
        Route("/tables", _loopback_only(tables)),
        Route("/launch", _loopback_only(launch), methods=["POST"]),
        Route("/admin/players", _loopback_only(players), methods=["GET", "POST"]),
        Route("/admin/sessions", _loopback_only(sessions), methods=["POST"]),
        Route("/admin/sessions/{token}", _loopback_only(sessions), methods=["DELETE"]),
        Route("/admin/transactions", _loopback_only(transactions)),
        Route("/admin/faults", _loopback_only(fault_settings), methods=["GET", "PUT"]),
        Route("/admin/reconcile", _loopback_only(reconcile)),
        Route("/admin/books", _loopback_only(books)),
        Route("/cashier", _loopback_only(cashier)),
        Route("/admin/campaigns", _loopback_only(campaigns), methods=["GET", "POST"]),
        Route("/admin/campaigns/{tail:path}", _loopback_only(campaigns), methods=["GET", "POST"]),
    ]
    app = Starlette(routes=routes)
    app.state.ledger, app.state.faults = ledger, faults
    return app


def asgi(app: Starlette) -> ASGIApp:
    """``app`` with dropped answers ending their connections (what uvicorn serves)."""
    return _Drops(app)
