"""`dealerpoker verify`: check a provably fair deal and, given its record, every payout.

    dealerpoker verify --server-seed SEED --commitment HASH --client-seed TEXT --nonce N
    dealerpoker verify --round-file round.json [--json]      # seeds taken from the record (solo or live)
    dealerpoker verify --round-file export.jsonl             # every record of an export

Exit status: 0 when everything matches, 1 when anything does not (each mismatch is printed,
naming the part of the record), 2 for unusable input (missing options, unreadable file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dealerpoker.fairness.verify import Finding

_DEAL_OPTIONS = ("server_seed", "commitment", "client_seed", "nonce")


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "verify",
        help="verify a provably fair deal and a round record",
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
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(func=run)


def _read_records(name: str) -> list[Any]:
    text = sys.stdin.read() if name == "-" else Path(name).read_text("utf-8")
    try:
        return [json.loads(text)]
    except json.JSONDecodeError as whole_error:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) < 2:
            raise ValueError(f"not JSON: {whole_error}") from None
        records = []
        for number, line in enumerate(lines, start=1):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"line {number} is not JSON: {error}") from None
        return records


def _deck_text(deck: tuple[int, ...]) -> str:
    from dealerpoker.cards.encoding import text_from_indices

    return (
        f"player {text_from_indices(deck[0:2])} | dealer {text_from_indices(deck[2:4])} "
        f"| flop {text_from_indices(deck[4:7])} | turn {text_from_indices(deck[7:8])} "
        f"| river {text_from_indices(deck[8:9])} | rest {text_from_indices(deck[9:])}"
    )


def run(args: argparse.Namespace) -> int:
    from dealerpoker.cards.encoding import texts_from_indices
    from dealerpoker.fairness.verify import verify_deal, verify_record

    given = {name: getattr(args, name) for name in _DEAL_OPTIONS}
    results: list[dict[str, Any]] = []
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
        except (OSError, ValueError) as error:
            print(f"dealerpoker verify: error: {args.round_file}: {error}", file=sys.stderr)
            return 2
        if len(records) > 1 and any(value is not None for value in given.values()):
            print(
                "dealerpoker verify: error: seed options apply to a single record, "
                f"{args.round_file} holds {len(records)}",
                file=sys.stderr,
            )
            return 2
        for record in records:
            findings = verify_record(
                record,
                server_seed=args.server_seed,
                expected_commitment=args.commitment,
                client_seed=args.client_seed,
                nonce=args.nonce,
            )
            round_id = record.get("round_id") if isinstance(record, dict) else None
            deck = tuple(record["deck"]) if all(f.ok for f in findings) else None
            results.append({"round_id": round_id, "findings": findings, "deck": deck})
    ok = all(f.ok for result in results for f in result["findings"])
    if args.json:
        print(
            json.dumps(
                {
                    "ok": ok,
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
        if len(results) > 1:
            bad = sum(1 for r in results if not all(f.ok for f in r["findings"]))
            print(
                f"{len(results) - bad} of {len(results)} rounds verified" + (f", {bad} FAILED" if bad else "")
            )
    return 0 if ok else 1


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
