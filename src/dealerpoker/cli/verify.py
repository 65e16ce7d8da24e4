"""`dealerpoker verify`: check a provably fair deal and, given its record, every payout.

    dealerpoker verify --server-seed SEED --commitment HASH --client-seed TEXT --nonce N
    dealerpoker verify --round-file round.json [--json]      # seeds taken from the record (solo or live)
    dealerpoker verify --round-file export.jsonl             # every record of an export
    dealerpoker verify --round-file FILE --server URL        # ... signed by URL, under its published rules
    dealerpoker verify --round-file FILE --public-key KEY.pem --rules-dir APPROVED/   # the same, offline

Without --server, --public-key or --rules-dir only the record's consistency is checked (a NOTE
says so): the server's signature and the approved rules are what bind it to the deployment.

Exit status: 0 when everything matches, 1 when anything does not (each mismatch is printed,
naming the part of the record), 2 for unusable input (missing options, an unreadable file, text
that is not a round record: not JSON, NaN or Infinity, nested deeper than a record, a top-level
array or null, a public key, rules directory or server that cannot be used), each told in one
line on standard error. In an export a bad line is reported
with its line number and the other records are still checked: the exit status is then 1 if any
record failed, else 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dealerpoker.cli import SUBCOMMANDS

if TYPE_CHECKING:
    from dealerpoker.fairness.verify import Finding

_DEAL_OPTIONS = ("server_seed", "commitment", "client_seed", "nonce")


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "verify",
        help=SUBCOMMANDS["verify"],
        description="Recompute the commitment and the deck from the revealed seed; with a round record "
        "(GET /api/rounds/{id}/record, a live round's GET /api/tables/{id}/rounds/{n}/record, or "
        "`dealerpoker export`), also check the dealt cards, replay and re-settle the round (every seat of "
        "a live round) with the rules engine and check every payout and ledger entry.",
    )
    parser.add_argument("--server-seed", help="the revealed server seed (64 hex characters)")
    parser.add_argument("--commitment", help="the SHA-256 commitment published before the bets")
    parser.add_argument("--client-seed", help="the client seed the round used")
    parser.add_argument("--nonce", type=int, help="the nonce the round used")
    parser.add_argument(
        "--round-file",
        metavar="FILE",
        help="a round record (JSON) or an export (JSONL); '-' reads standard input",
    )
    bound = parser.add_argument_group(
        "records bound to the deployment",
        "a record's own consistency proves nothing about who made it: anyone can edit a paytable and "
        "recompute the fingerprint and the digest. These check the server's signature and that the "
        "record's rules are the published, approved ones (docs/fairness.md)")
    bound.add_argument("--server", metavar="URL",
                       help="the deployment (e.g. https://casino.example): its public key "
                            "(GET /api/fairness/public-key) and its published rules (GET /api/rules/{fp})")
    bound.add_argument("--public-key", metavar="FILE",
                       help="the deployment's Ed25519 public key: PEM, or the JSON of "
                            "GET /api/fairness/public-key (wins over --server's)")
    bound.add_argument("--rules-dir", metavar="DIR",
                       help="the approved rules documents, *.json (a document, or the body of "
                            "GET /api/rules/{fingerprint}): each record's rules must be one")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(func=run)


#: Deepest nesting a record may have: records are a few levels deep, so anything deeper is not one
#: (and a bound keeps a hostile file from exhausting the parser's stack).
MAX_DEPTH = 32


class UnusableInput(ValueError):
    """A file, or one line of an export, that is not a round record to check."""


def _parse(text: str) -> Any:
    """One JSON value, refused (UnusableInput, one line) when it is not strict, bounded JSON."""

    def no_constant(name: str) -> Any:
        raise UnusableInput(f"{name} is not a JSON number (amounts are integers)")

    try:
        value = json.loads(text, parse_constant=no_constant)
    except RecursionError:
        raise UnusableInput(f"nested deeper than {MAX_DEPTH} levels: not a round record") from None
    except json.JSONDecodeError as error:
        raise UnusableInput(f"not JSON: {error}") from None
    if _depth(value) > MAX_DEPTH:
        raise UnusableInput(f"nested deeper than {MAX_DEPTH} levels: not a round record")
    if not isinstance(value, dict):
        raise UnusableInput(f"a round record is a JSON object, this is {_json_type(value)}")
    return value


def _depth(value: Any) -> int:
    """Nesting depth of parsed JSON, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth <= MAX_DEPTH:
                children = item.values() if isinstance(item, dict) else item
                stack.extend((child, depth + 1) for child in children)
    return deepest


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _read_records(name: str) -> list[tuple[int | None, dict[str, Any] | UnusableInput]]:
    """``(line number or None, record or the reason it is unusable)`` for each record of a file.

    A file holding one JSON value is one record (a bad one raises UnusableInput: the whole file is
    unusable). An export (JSON Lines) is read line by line: a bad line is kept as its reason, so
    it is reported with its number and the other records are still checked.
    """
    try:
        text = sys.stdin.read() if name == "-" else Path(name).read_text("utf-8")
    except UnicodeDecodeError as error:
        raise UnusableInput(f"not UTF-8 text: {error.reason} at byte {error.start}") from None
    try:
        return [(None, _parse(text))]
    except UnusableInput as whole_error:
        lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
        if not _is_json_lines(name, lines):
            raise whole_error from None
    records: list[tuple[int | None, dict[str, Any] | UnusableInput]] = []
    for number, line in lines:
        try:
            records.append((number, _parse(line)))
        except UnusableInput as error:
            records.append((number, error))
    return records


def _is_json_lines(name: str, lines: list[tuple[int, str]]) -> bool:
    """An export: named .jsonl, or several lines of which at least one alone is a record."""
    if name.endswith((".jsonl", ".ndjson")):
        return True
    if len(lines) < 2:
        return False
    for _, line in lines:
        try:
            _parse(line)
        except UnusableInput:
            continue
        return True
    return False


def _deck_text(deck: tuple[int, ...]) -> str:
    from dealerpoker.cards.encoding import text_from_indices

    return (
        f"player {text_from_indices(deck[0:2])} | dealer {text_from_indices(deck[2:4])} "
        f"| flop {text_from_indices(deck[4:7])} | turn {text_from_indices(deck[7:8])} "
        f"| river {text_from_indices(deck[8:9])} | rest {text_from_indices(deck[9:])}"
    )


def run(args: argparse.Namespace) -> int:
    from dealerpoker.cards.encoding import texts_from_indices
    from dealerpoker.cli._anchors import AnchorError, Anchors, load_anchors
    from dealerpoker.fairness.verify import verify_deal, verify_record

    given = {name: getattr(args, name) for name in _DEAL_OPTIONS}
    results: list[dict[str, Any]] = []
    unusable: list[dict[str, Any]] = []  # lines of an export that are not records (told on stderr)
    anchors = Anchors()
    if args.round_file is None:
        missing = [f"--{name.replace('_', '-')}" for name, value in given.items() if value is None]
        if missing:
            print(
                f"dealerpoker verify: error: {', '.join(missing)} needed (or --round-file)", file=sys.stderr
            )
            return 2
        findings, deck = verify_deal(args.server_seed, args.commitment, args.client_seed, args.nonce)
        results.append({"round_id": None, "findings": findings, "deck": deck})
    else:
        try:
            records = _read_records(args.round_file)
        except (OSError, UnusableInput) as error:
            print(f"dealerpoker verify: error: {args.round_file}: {_reason(error)}", file=sys.stderr)
            return 2
        try:
            anchors = load_anchors(args.public_key, args.rules_dir, args.server)
            approved = [anchors.approved_for(record) if isinstance(record, dict) else None
                        for _, record in records]
        except AnchorError as error:
            print(f"dealerpoker verify: error: {error}", file=sys.stderr)
            return 2
        if len(records) > 1 and any(value is not None for value in given.values()):
            print(
                "dealerpoker verify: error: seed options apply to a single record, "
                f"{args.round_file} holds {len(records)}",
                file=sys.stderr,
            )
            return 2
        for (line, record), approved_rules in zip(records, approved, strict=True):
            if isinstance(record, UnusableInput):
                print(f"dealerpoker verify: error: {args.round_file}: line {line}: {record}", file=sys.stderr)
                unusable.append({"line": line, "error": str(record)})
                continue
            findings = verify_record(
                record,
                server_seed=args.server_seed,
                expected_commitment=args.commitment,
                client_seed=args.client_seed,
                nonce=args.nonce,
                public_key=anchors.public_key,
                approved_rules=approved_rules,
            )
            round_id = record.get("round_id")
            deck = tuple(record["deck"]) if all(f.ok for f in findings) else None
            results.append({"round_id": round_id, "findings": findings, "deck": deck})
    ok = all(f.ok for result in results for f in result["findings"])
    bound = {"signature": anchors.checks_signature, "rules": anchors.checks_rules} \
        if args.round_file is not None else None
    if args.json:
        print(
            json.dumps(
                {
                    "ok": ok and not unusable,
                    "checked": bound,
                    "unusable_lines": unusable,
                    "rounds": [
                        {
                            "round_id": r["round_id"],
                            "ok": all(f.ok for f in r["findings"]),
                            "deck": None if r["deck"] is None else list(r["deck"]),
                            "cards": None
                            if r["deck"] is None
                            else texts_from_indices(r["deck"]),
                            "findings": [f.to_dict() for f in r["findings"]],
                        }
                        for r in results
                    ],
                },
                indent=2,
            )
        )
    else:
        for result in results:
            _print_text(result["round_id"], result["findings"], result["deck"])
        if bound is not None and not all(bound.values()):
            unchecked = " and ".join(name for name, checked in bound.items() if not checked)
            print(f"NOTE: {unchecked} not checked: this says the record is consistent, not that the "
                  "deployment made it under approved rules (give --server URL, or --public-key FILE "
                  "and --rules-dir DIR)")
        if len(results) + len(unusable) > 1:
            bad = sum(1 for r in results if not all(f.ok for f in r["findings"]))
            print(
                f"{len(results) - bad} of {len(results)} rounds verified" + (f", {bad} FAILED" if bad else "")
                + (f"; {len(unusable)} unusable line(s) not checked" if unusable else "")
            )
    return 1 if not ok else 2 if unusable else 0


def _reason(error: OSError | UnusableInput) -> str:
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


def _print_text(round_id: str | None, findings: list[Finding], deck: tuple[int, ...] | None) -> None:
    title = f"round {round_id}" if round_id is not None else "deal"
    for finding in findings:
        print(f"{title}: {finding}")
    if deck is not None:
        print(f"{title}: deck {_deck_text(deck)}")
    mismatches = [f for f in findings if not f.ok]
    if mismatches:
        names = ", ".join(dict.fromkeys(f.subject for f in mismatches))
        print(f"{title}: FAILED: {len(mismatches)} mismatch(es): {names}")
    else:
        print(f"{title}: VERIFIED")
