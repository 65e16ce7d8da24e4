"""Every failure becomes ``{"error": code, "message": text}``: a 4xx status, never a 500 for bad input."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.edge.errors import domain_error_response, error_response

log = logging.getLogger("dealerpoker.server")

_STATUS_CODES = {
    400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 409: "conflict", 413: "too_large", 415: "unsupported_media_type",
    422: "invalid_request",
}
#: The error statuses documented on every API operation.
ERROR_STATUSES = (400, 401, 403, 404, 409, 422)


def _validation_message(error: RequestValidationError) -> tuple[int, str, str]:
    problems = []
    for problem in error.errors():
        if problem.get("type") == "json_invalid":
            return 400, "malformed_json", f"the body is not valid JSON: {problem.get('msg', '')}"
        where = ".".join(str(part) for part in problem.get("loc", ()))
        problems.append(f"{where}: {problem.get('msg', 'invalid')}")
    return 422, "invalid_request", "; ".join(problems) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    async def on_domain(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, DealerPokerError)
        return domain_error_response(error)

    async def on_validation(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, RequestValidationError)
        status, code, message = _validation_message(error)
        return error_response(status, code, message)

    async def on_http(_request: Request, error: Exception) -> JSONResponse:
        assert isinstance(error, StarletteHTTPException)
        code = _STATUS_CODES.get(error.status_code, "error" if error.status_code < 500 else "internal_error")
        response = error_response(error.status_code, code, str(error.detail))
        if error.headers:
            response.headers.update(error.headers)
        return response

    async def on_unexpected(_request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=error)
        return error_response(500, "internal_error", "internal error (logged on the server)")

    app.add_exception_handler(DealerPokerError, on_domain)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
    app.add_exception_handler(Exception, on_unexpected)
