"""The operators file (docs/operators.md) as TOML text, for the tests that tell a server about
casinos: one ``[[operators]]`` entry each call, its settings in the order given.

    operator_entry("casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9299/wallet",
                   currencies=["EUR"], chips={"EUR": [100, 200]},
                   limits={"EUR": {"ante": {"min": 200, "max": 1000}}})

writes ``currencies = ["EUR"]``, ``EUR = [100, 200]`` and ``ante = { min = 200, max = 1000 }`` as
a person would, so a test may still ``.replace`` one line to make the entry wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{key} = {_value(item)}" for key, item in value.items()) + " }"
    return "[" + ", ".join(_value(item) for item in value) + "]"


def _table(name: str, settings: Mapping[str, Any]) -> list[str]:
    return [f"[{name}]", *(f"{key} = {_value(value)}" for key, value in settings.items())]


def swedish_links(operator_id: str) -> dict[str, str]:
    """The three links Sweden requires in the game (Spelpaus, the operator's Spelgränser, Självtest)."""
    return {"spelpaus": "https://www.spelpaus.se/", "spelgranser": f"https://{operator_id}.example/limits",
            "sjalvtest": "https://www.stodlinjen.se/"}


def operator_entry(operator_id: str, *, chips: Mapping[str, list[int]] | None = None,
                   limits: Mapping[str, Mapping[str, Mapping[str, int]]] | None = None,
                   responsible_gaming: Mapping[str, Any] | None = None,
                   links: Mapping[str, str] | None = None, **settings: Any) -> str:
    """One ``[[operators]]`` entry: ``id``, then ``settings`` (``secret`` or ``secret_env``,
    ``wallet_url``, ``currencies``, ``frame_ancestors``...; a None is left out), then its tables
    (``links``: those a jurisdiction requires, e.g. ``swedish_links``)."""
    lines = ["[[operators]]", f"id = {_value(operator_id)}"]
    lines += [f"{key} = {_value(value)}" for key, value in settings.items() if value is not None]
    if chips:
        lines += _table("operators.chips", chips)
    for currency, fields in (limits or {}).items():
        lines += _table(f"operators.limits.{currency}", fields)
    if responsible_gaming:
        lines += _table("operators.responsible_gaming", responsible_gaming)
    if links:
        lines += _table("operators.links", links)
    return "\n".join(lines) + "\n"


def operators_file(*entries: str) -> str:
    """The file of these entries."""
    return "\n".join(entries)


def demo_entry(operator: Any, **settings: Any) -> str:
    """The entry of a running reference operator (``tests.support.operator.OperatorDemo``): its id
    and secret, its wallet at its URL, EUR, its page allowed to frame the tables; ``settings``
    add to or replace these (``secret=None, secret_env="NAME"``: the secret from the environment)."""
    defaults: dict[str, Any] = {"secret": operator.secret, "wallet_url": operator.url,
                                "currencies": ["EUR"], "frame_ancestors": [operator.url]}
    return operator_entry(operator.operator_id, **(defaults | settings))
