"""The error body every HTTP answer carries, ``{"error": code, "message": text}``: written here,
below the routes, so the middleware (limits, the text rule) and the routes answer alike."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.errors import error_fields


class ErrorOut(BaseModel):
    model_config = ConfigDict(extra="allow")

    error: str = Field(description="machine-readable code, e.g. insufficient_funds")
    message: str = Field(description="what is wrong, for people")


def error_response(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return _response(status, {"error": code, "message": message, **extra})


def domain_error_response(error: DealerPokerError) -> JSONResponse:
    """The 4xx response for an error of the domain: the status and code its class names, the
    message naming the problem (the same fields a WebSocket error message carries)."""
    return _response(error.status, error_fields(error))


def _response(status: int, body: dict[str, Any]) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    if status in (429, 503) and "retry_after" in body:
        headers = {"Retry-After": str(body["retry_after"])}
    return JSONResponse(body, status_code=status, headers=headers)
