"""JSON from outside the server, parsed with a bound on nesting: request bodies (the edge's body
guard, the fast path), WebSocket frames (players' and the studio dealer's).

Python's ``json`` recurses once per ``[`` or ``{``: a frame of 100,000 brackets raises
``RecursionError`` deep in the parser. ``loads`` refuses anything nested deeper than
``MAX_DEPTH`` with :class:`TooDeepError` (a ``ValueError``) before parsing. Nothing the server
takes is nested more than four levels; ``MAX_DEPTH`` leaves room.

>>> loads('{"bets": {"ante": 100}}')
{'bets': {'ante': 100}}
>>> loads("[" * 40 + "]" * 40)
Traceback (most recent call last):
...
dealerpoker.server.jsonin.TooDeepError: JSON nested deeper than 32 levels
>>> depth(b'{"a": "[[[[", "b": [1, {"c": []}]}')
4
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects any input may have."""

_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class TooDeepError(ValueError):
    """JSON nested deeper than ``MAX_DEPTH``."""

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels")
        self.limit = limit


def depth(data: bytes | str) -> int:
    """How deeply arrays and objects nest in ``data`` (brackets inside strings do not count)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    deepest = level = 0
    for match in _TOKENS.finditer(raw):
        token = match.group()
        if token in (b"[", b"{"):
            level += 1
            deepest = max(deepest, level)
        elif token in (b"]", b"}"):
            level -= 1
    return deepest


def too_deep(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``data`` nests deeper than ``limit``. Cheap for ordinary input: with no more
    opening brackets than ``limit`` it cannot (counted in C); only then are the tokens scanned."""
    opening = data.count(b"[") + data.count(b"{") if isinstance(data, bytes) \
        else data.count("[") + data.count("{")
    return opening > limit and depth(data) > limit


def loads(data: bytes | str, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` for untrusted input: :class:`TooDeepError` when nested deeper than ``limit``,
    ``ValueError`` when not JSON."""
    if too_deep(data, limit):
        raise TooDeepError(limit)
    return json.loads(data)
