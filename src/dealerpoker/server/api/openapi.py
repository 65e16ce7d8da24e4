"""The OpenAPI document made exact: what it describes is what the server accepts.

FastAPI derives the document from the request models, which cannot know what the server is
configured with. ``exact_openapi`` completes it once, when it is first asked for:

- every text (strings, object keys, path and query parameters) excludes NUL and lone
  surrogates (``server.text``: ``pattern`` and ``propertyNames``);
- ``POST /api/rounds``: one shape per game (``oneOf`` on ``game``): its opening fields with the
  default currency's limits (an optional one may be 0), the main one required, nothing else;
- the currencies (``GET /api/games?currency=``, ``POST /api/session``) are the ones offered, and
  ``POST /api/session`` takes a currency or an operator's launch, not both;
- ``step`` and the other integers are JSON integers (``67.0`` is the integer 67 in JSON Schema,
  and the server reads it so: ``models.Integer``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dealerpoker.games import AnyGame
from dealerpoker.server.text import TEXT_PATTERN


def exact_openapi(original: Callable[[], dict[str, Any]], games: Mapping[str, AnyGame],
                  currencies: list[str]) -> Callable[[], dict[str, Any]]:
    """``app.openapi`` completed as above (computed once, like FastAPI's own)."""
    done: dict[str, Any] = {}

    def openapi() -> dict[str, Any]:
        if not done:
            document = original()
            _texts(document)
            schemas = document.get("components", {}).get("schemas", {})
            if "RoundIn" in schemas:
                schemas["RoundIn"] = _round_in(schemas["RoundIn"], games)
            if "SessionIn" in schemas:
                schemas["SessionIn"] = _session_in(schemas["SessionIn"], currencies)
            for path in document.get("paths", {}).values():
                for operation in path.values():
                    for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                        if parameter.get("name") == "currency" and parameter.get("in") == "query":
                            parameter["schema"] = {"anyOf": [{"type": "string", "enum": currencies},
                                                             {"type": "null"}]}
            done.update(document)
        return done

    return openapi


def _texts(node: Any) -> None:
    """Every string schema without a pattern, enum or const excludes the forbidden characters;
    every object with free keys names them so."""
    if isinstance(node, dict):
        if node.get("type") == "string" and not ({"pattern", "enum", "const"} & set(node)):
            node["pattern"] = TEXT_PATTERN
        if node.get("type") == "object" and node.get("additionalProperties") not in (None, False) \
                and "propertyNames" not in node:
            node["propertyNames"] = {"pattern": TEXT_PATTERN}
        for value in node.values():
            _texts(value)
    elif isinstance(node, list):
        for item in node:
            _texts(item)


def _round_in(schema: dict[str, Any], games: Mapping[str, AnyGame]) -> dict[str, Any]:
    """``RoundIn`` as one shape per game."""
    shapes = []
    for name, game in games.items():
        main = game.opening_fields[0]
        fields: dict[str, Any] = {}
        for field in game.opening_fields:
            limit = game.rules.limits[field]
            amount = {"type": "integer", "minimum": limit.min, "maximum": limit.max}
            fields[field] = amount if field == main else {"anyOf": [{"type": "integer", "enum": [0]}, amount]}
        properties = dict(schema["properties"])
        properties["game"] = {"type": "string", "enum": [name]}
        properties["bets"] = {"type": "object", "properties": fields, "required": [main],
                              "additionalProperties": False, "minProperties": 1,
                              "description": f"{name}: field -> amount in minor units of the default "
                                             "currency's limits (GET /api/games gives each currency's)"}
        shapes.append({"type": "object", "properties": properties, "required": ["game", "bets"],
                       "additionalProperties": False, "title": f"RoundIn ({name})"})
    return {"oneOf": shapes, "title": "RoundIn", "description": schema.get("description", "")}


def _session_in(schema: dict[str, Any], currencies: list[str]) -> dict[str, Any]:
    """``SessionIn``: a demo player in one of the currencies offered, or an operator's launch
    (whose currency is the launch's: not both)."""
    properties = schema["properties"]
    demo = {"type": "object", "properties": {
        "currency": {"anyOf": [{"type": "string", "enum": currencies}, {"type": "null"}]}},
        "additionalProperties": False, "title": "SessionIn (demo)"}
    launched = {"type": "object", "properties": {"launch": properties["launch"]}, "required": ["launch"],
                "additionalProperties": False, "title": "SessionIn (launch)"}
    return {"oneOf": [demo, launched], "title": "SessionIn", "description": schema.get("description", "")}
