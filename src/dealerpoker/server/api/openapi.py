"""The OpenAPI document made exact: what it describes is what the server accepts.

FastAPI derives the document from the request models, which cannot know what the server is
configured with. ``exact_openapi`` completes it once, when it is first asked for:

- every text (strings, object keys, path and query parameters) excludes NUL (``server.text``:
  ``pattern`` and ``propertyNames``), free JSON in a request too (a paytable draft's
  ``changes``: its values are ``JsonValue``, any JSON whose texts hold no NUL);
- ``POST /operator/v1/campaigns``: ``ante`` and ``max_win`` keyed by the operators' currencies,
  each ante within the operators' limits in its currency;
- ``POST /api/rounds``: one shape per game (``oneOf`` on ``game``): its opening fields with the
  default currency's limits (an optional one may be 0), the main one required, nothing else;
- the currencies (``GET /api/games?currency=``, ``POST /api/session``) are the ones offered (the
  back office's filters by currency are free text), and
  ``POST /api/session`` takes a currency or an operator's launch, not both;
- a bound beside ``| None`` is JSON Schema's ``minimum``/``maximum`` (pydantic writes ``ge``/``le``);
- ``step`` and the other integers are JSON integers (``67.0`` is the integer 67 in JSON Schema,
  and the server reads it so: ``models.Integer``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dealerpoker.games import AnyGame
from dealerpoker.games.money import MAX_AMOUNT
from dealerpoker.server.text import TEXT_PATTERN


def exact_openapi(original: Callable[[], dict[str, Any]], games: Mapping[str, AnyGame],
                  currencies: list[str], operator_currencies: list[str] | None = None,
                  operator_antes: Mapping[str, tuple[int, int]] | None = None,
                  ) -> Callable[[], dict[str, Any]]:
    """``app.openapi`` completed as above (computed once, like FastAPI's own)."""
    done: dict[str, Any] = {}

    def openapi() -> dict[str, Any]:
        if not done:
            document = original()
            _texts(document)
            schemas = document.get("components", {}).get("schemas", {})
            _free_json_in_requests(document, schemas)
            if "RoundIn" in schemas:
                schemas["RoundIn"] = _round_in(schemas["RoundIn"], games)
            if "SessionIn" in schemas:
                schemas["SessionIn"] = _session_in(schemas["SessionIn"], currencies)
            for route, path in document.get("paths", {}).items():
                if route.startswith("/admin/"):
                    continue  # the back office's currency filters are free text (none matches: no rows)
                for operation in path.values():
                    for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                        if parameter.get("name") == "currency" and parameter.get("in") == "query":
                            parameter["schema"] = {"anyOf": [{"type": "string", "enum": currencies},
                                                             {"type": "null"}]}
            _operators(document, operator_currencies or [], operator_antes or {})
            done.update(document)
        return done

    return openapi


BOUNDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}
"""pydantic writes a bound given beside ``| None`` (``Integer | None = Field(ge=1)``) under its own
name, which JSON Schema does not know: the document says it in JSON Schema's."""


def _texts(node: Any) -> None:
    """Every string schema without a pattern, enum or const excludes the forbidden characters;
    every object with free keys names them so; every bound has its JSON Schema name."""
    if isinstance(node, dict):
        if node.get("type") in ("integer", "number"):
            for name, standard in BOUNDS.items():
                if name in node:
                    node[standard] = node.pop(name)
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


OPERATOR_SIGNATURE = {
    "type": "apiKey", "in": "header", "name": "X-Signature",
    "description": "The operator's HMAC-SHA256 signature of the request's method, path with query, "
                   "X-Signature-Timestamp, X-Signature-Nonce and body hash, with X-Operator-Id naming "
                   "the operator (docs/operators.md#signatures). A request without a valid one, or "
                   "one sent before, is refused with 401 invalid_signature and changes nothing."}


def _operators(document: dict[str, Any], currencies: list[str],
               antes: Mapping[str, tuple[int, int]]) -> None:
    """The operators' signature scheme, when the server has operators; a launch's currency: one
    of the operators' (each operator may launch only in its own); a free-bet campaign's ``ante``
    and ``max_win``: keyed by those currencies, an ante within the loosest limits of the
    operators and games in its currency (each game's for the signing operator hold too)."""
    paths = document.get("paths", {})
    if not any(path.startswith("/operator/") for path in paths):
        return
    document.setdefault("components", {}).setdefault("securitySchemes", {})["operatorSignature"] = \
        OPERATOR_SIGNATURE
    launch = paths.get("/operator/v1/launch", {}).get("post")
    if launch is not None:
        body = launch["requestBody"]["content"]["application/json"]["schema"]
        body["properties"]["currency"] = {"type": "string", "enum": currencies,
                                          "description": "one of the operator's currencies"}
    campaign = paths.get("/operator/v1/campaigns", {}).get("post")
    if campaign is not None:
        properties = campaign["requestBody"]["content"]["application/json"]["schema"]["properties"]
        ante = {code: {"type": "integer", "minimum": low, "maximum": high}
                for code, (low, high) in antes.items()}
        properties["ante"] = _per_currency(properties["ante"], ante)
        cap = {code: {"type": "integer", "minimum": 1, "maximum": MAX_AMOUNT} for code in currencies}
        properties["max_win"] = {"anyOf": [_per_currency(properties["max_win"], cap), {"type": "null"}],
                                 "default": None, "description": properties["max_win"].get("description", "")}


def _per_currency(schema: dict[str, Any], amounts: dict[str, Any]) -> dict[str, Any]:
    """An object of amounts keyed by currency: at least one, each of ``amounts``' currencies."""
    return {"type": "object", "properties": amounts, "additionalProperties": False, "minProperties": 1,
            "description": schema.get("description", "")}


JSON_VALUE = {
    "title": "JsonValue", "description": "any JSON value whose texts (strings and keys) hold no NUL "
                          "and whose numbers are within 2**53 - 1 either way",
    "anyOf": [{"type": "string", "pattern": TEXT_PATTERN},
              {"type": "number", "minimum": -MAX_AMOUNT, "maximum": MAX_AMOUNT}, {"type": "boolean"},
              {"type": "null"}, {"type": "array", "items": {"$ref": "#/components/schemas/JsonValue"}},
              {"type": "object", "propertyNames": {"pattern": TEXT_PATTERN},
               "additionalProperties": {"$ref": "#/components/schemas/JsonValue"}}]}


def _free_json_in_requests(document: dict[str, Any], schemas: dict[str, Any]) -> None:
    """An object of a request body that takes more than its named fields (``additionalProperties``
    true or left out) takes ``JsonValue``s under keys without NUL (so its texts, at any depth, say
    they hold no NUL); answers keep theirs free."""
    seen: set[str] = set()
    used = False

    def visit(node: Any) -> None:
        nonlocal used
        if isinstance(node, dict):
            reference = node.get("$ref")
            if isinstance(reference, str) and reference.startswith("#/components/schemas/"):
                name = reference.rsplit("/", 1)[1]
                if name not in seen and name in schemas:
                    seen.add(name)
                    visit(schemas[name])
            if node.get("type") == "object" and node.get("additionalProperties", True) is True:
                node["additionalProperties"] = {"$ref": "#/components/schemas/JsonValue"}
                node.setdefault("propertyNames", {"pattern": TEXT_PATTERN})
                used = True
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for item in node:
                visit(item)

    for path in document.get("paths", {}).values():
        for operation in path.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                visit(operation["requestBody"])
    if used:
        schemas["JsonValue"] = JSON_VALUE


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
