"""Canonical JSON: the one text form hashed for table client seeds and record digests.

Keys sorted at every level, separators ``,`` and ``:`` without spaces, non-ASCII escaped as
``\\uXXXX`` -- the same bytes as Python's ``json.dumps(value, sort_keys=True,
separators=(",", ":"))`` and as JavaScript's ``JSON.stringify`` of a key-sorted copy for the
integers and ASCII text records hold.

>>> canonical_json({"b": [1, 2], "a": {"d": None, "c": "x"}})
'{"a":{"c":"x","d":null},"b":[1,2]}'
>>> sha256_hex(canonical_json({}))
'44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "sha256_hex"]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
