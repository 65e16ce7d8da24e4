"""Structured logs: one JSON object per line (``serve --log-format json``, the default), with
the id of the request being served (``X-Request-Id``; ``dealerpoker.server.edge.context``).

>>> import logging
>>> record = logging.LogRecord("dealerpoker.server", logging.ERROR, "x.py", 1, "ledger %s", ("ok",), None)
>>> sorted(json.loads(JsonFormatter().format(record)))
['level', 'logger', 'message', 'time']
"""

from __future__ import annotations

import contextvars
import json
import logging
from datetime import UTC, datetime
from typing import Any

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("dealerpoker_request_id",
                                                                      default=None)
"""The id of the request (or WebSocket) being served, for the log lines written while it runs."""

_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime",
                                                                             "color_message", "taskName"}


class JsonFormatter(logging.Formatter):
    """A record as ``{"time", "level", "logger", "message", "request_id"?, "exception"?, ...}``:
    the fields passed in ``extra`` are kept."""

    def format(self, record: logging.LogRecord) -> str:
        document: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage(),
        }
        request = REQUEST_ID.get()
        if request is not None:
            document["request_id"] = request
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                document[key] = value
        if record.exc_info:
            document["exception"] = self.formatException(record.exc_info)
        return json.dumps(document, default=str, ensure_ascii=False)


class ErrorCounter(logging.Handler):
    """Counts every record at ERROR or above (``dealerpoker_errors_total{kind="log_error"}``)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)

    def emit(self, record: logging.LogRecord) -> None:
        from dealerpoker.server.observability.metrics import ERRORS

        ERRORS.labels(kind="log_error").inc()


def log_config(level: str, fmt: str = "json", *, access: bool = False) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` of ``serve`` (uvicorn's loggers included): JSON lines or
    plain text on stderr; ``access``: one line per request (``dealerpoker.access``)."""
    formatter = {"()": f"{__name__}.JsonFormatter"} if fmt == "json" else \
        {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}
    level = level.upper()
    return {
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"default": formatter},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "default",
                                "stream": "ext://sys.stderr"},
                     "errors": {"()": f"{__name__}.ErrorCounter"}},
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
            "dealerpoker.access": {"level": "INFO" if access else "WARNING"},
        },
        "root": {"handlers": ["stderr", "errors"], "level": level},
    }
