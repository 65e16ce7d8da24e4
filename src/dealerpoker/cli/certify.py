"""`dealerpoker certify`: the certification pack a test lab asks for (docs/certification.md)."""

from __future__ import annotations

import argparse
import os
import platform
import re
import secrets
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from dealerpoker.cli import SUBCOMMANDS
from dealerpoker.errors import DealerPokerError
from dealerpoker.games.rules import GAMES, Rules, load_rules

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

DEFAULT_SIM_ROUNDS = 10_000_000
DEFAULT_RNG_DECKS = 100_000
DEFAULT_NIST_SEQUENCES = 100
CONTROL_NIST_SEQUENCES = 10


class CertifyError(DealerPokerError, ValueError):
    """Bad ``certify`` input."""


class Step(Protocol):
    def __call__(self, done: int, total: int) -> None: ...


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "certify", help=SUBCOMMANDS["certify"],
        description="Write the certification pack: PAR sheets, RNG evidence, rules sheets, the software "
                    "manifest, an index.html linking them and SHA256SUMS.")
    parser.add_argument("--out", metavar="DIR", help="the pack's folder (created)")
    parser.add_argument("--rules", metavar="GAME=FILE", action="append", default=[],
                        help="also certify this rules TOML file for GAME (repeatable)")
    parser.add_argument("--rng-decks", metavar="N", type=int, default=DEFAULT_RNG_DECKS,
                        help=f"shuffled decks for the RNG battery (default {DEFAULT_RNG_DECKS:,})")
    parser.add_argument("--nist-sequences", metavar="N", type=int, default=DEFAULT_NIST_SEQUENCES,
                        help="1,000,000-bit sequences for the NIST SP 800-22 tests "
                             f"(default {DEFAULT_NIST_SEQUENCES})")
    parser.add_argument("--rng-seed", metavar="HEX",
                        help="the RNG battery's master seed (64 hex; default: drawn at random, printed)")
    parser.add_argument("--sim-rounds", metavar="N", type=int, default=DEFAULT_SIM_ROUNDS,
                        help=f"rounds per simulation run of the PAR sheets (default {DEFAULT_SIM_ROUNDS:,})")
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulation runs (default 1)")
    parser.add_argument("--jurisdiction", metavar="CODE", help="the jurisdiction the pack is for")
    parser.add_argument("--deck", metavar="DECK", help=argparse.SUPPRESS)  # a reduced deck, for tests
    parser.set_defaults(func=run, action=None)
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    manifest = actions.add_parser("manifest", help="write the software manifest of the installed package",
                                  description="SHA-256 of every critical file of the installed package "
                                              "(Python, web files, rules, migrations) and a build id; "
                                              "serve checks the files against it.")
    manifest.add_argument("--out", metavar="FILE", dest="manifest_out",
                          help="where to write it (default: software-manifest.json in the package)")
    verify = actions.add_parser("verify", help="HMAC-SHA256 of every critical file under a seed",
                                description="HMAC-SHA256(seed, file bytes) of each critical file of the "
                                            "installed package and over the whole manifest; with --against, "
                                            "the same from a copy of the package, compared.")
    verify.add_argument("--seed", required=True, metavar="HEX", help="the seed, in hex (the lab's choice)")
    verify.add_argument("--against", metavar="DIR", help="a copy of the package directory to compare with")
    verify.add_argument("--json", action="store_true", help="print one JSON object")


def rules_to_certify(entries: list[str]) -> list[tuple[Rules, str]]:
    """The shipped rules of both games, then each ``GAME=FILE`` (with where it came from)."""
    chosen = [(load_rules(game), "shipped") for game in GAMES]
    for entry in entries:
        game, equals, file = entry.partition("=")
        if not equals or game not in GAMES or not file:
            raise CertifyError(f"--rules {entry!r}: expected GAME=FILE with GAME one of {', '.join(GAMES)}")
        if not Path(file).is_file():
            raise CertifyError(f"--rules {entry!r}: no such file {file!r}")
        chosen.append((load_rules(game, file), Path(file).name))
    return chosen


@contextmanager
def progress_bars() -> Iterator[Any]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("{task.description:<36}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=None, transient=False,
                  disable=not sys.stderr.isatty()) as bars:
        yield bars


def step(bars: Any, label: str, total: int = 1) -> Step:
    task = bars.add_task(label, total=total)

    def update(done: int, total: int) -> None:
        bars.update(task, completed=done, total=total)

    return update


def run(args: argparse.Namespace) -> int:
    from dealerpoker import __version__
    from dealerpoker.certify.pack import Pack

    if args.action == "manifest":
        return run_manifest(args)
    if args.action == "verify":
        return run_verify(args)
    if not args.out:
        raise CertifyError("--out DIR is required (or an action: manifest, verify)")

    if args.rng_decks < 100:
        raise CertifyError("--rng-decks must be at least 100")
    if args.nist_sequences < 2:  # one failing sequence in one is not rare enough to reject (p = 0.01)
        raise CertifyError("--nist-sequences must be at least 2")
    if args.rng_seed is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", args.rng_seed):
        raise CertifyError("--rng-seed must be 64 hex digits")
    if args.sim_rounds < 0:
        raise CertifyError("--sim-rounds must not be negative (0 leaves the simulation column out)")
    chosen = rules_to_certify(args.rules)
    profile = jurisdiction_profile(args.jurisdiction)
    if profile is not None:
        chosen = approved_rules(profile, chosen)
    out = Path(args.out)
    pack = Pack(out, {"dealerpoker": __version__,
                      "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S"),
                      "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.system()}",
                      "jurisdiction": args.jurisdiction,
                      "settings": {"simulation rounds per run": f"{args.sim_rounds:,}",
                                   "simulation seed": args.seed, "RNG decks": f"{args.rng_decks:,}",
                                   "NIST sequences": f"{args.nist_sequences} x 1,000,000 bits",
                                   "deck": args.deck or "full 52 cards",
                                   "rules": ", ".join(f"{r.game} ({where})" for r, where in chosen)}})
    with progress_bars() as bars:
        if profile is not None:
            add_jurisdiction(pack, profile)
        for rules, where in chosen:
            par = add_par_sheet(pack, rules, where, args, bars)
            add_rules_sheets(pack, rules, where, par, profile)
        add_rng_evidence(pack, args, bars)
        add_software_manifest(pack)
    sums = pack.finish()
    print(f"certification pack written to {out} ({len(pack.parts)} parts); check it with: "
          f"cd {out} && sha256sum -c {sums.name}")
    return 0


def add_par_sheet(pack: Any, rules: Rules, where: str, args: argparse.Namespace,
                  bars: Any) -> dict[str, Any]:
    from dealerpoker import __version__
    from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
    from dealerpoker.analysis.rtp import cache_key
    from dealerpoker.certify.par import par_document, par_html, side_bet_lines, simulation_column
    from dealerpoker.cli._analysis_cache import DiskCache
    from dealerpoker.cli.analyze import cached_analysis

    deck = FULL_DECK if args.deck is None else DeckSpec.parse(args.deck)
    label = f"{rules.game} ({where})"
    analysing = step(bars, f"PAR {label}: exact analysis")
    analysis = cached_analysis(rules, deck=args.deck)
    cache = DiskCache()
    tables = cache.load_tables(cache_key(rules, deck))
    if tables is None:  # a result cached without its tables: count again
        analysis = cached_analysis(rules, use_cache=False, deck=args.deck)
        tables = cache.load_tables(cache_key(rules, deck))
    analysing(1, 1)
    simulation = None
    if args.sim_rounds:
        simulation = simulation_column(rules, tables or {}, args.sim_rounds, seed=args.seed, deck=deck,
                                       progress=step(bars, f"PAR {label}: simulation", 2 * args.sim_rounds))
    document = par_document(rules, analysis, side_lines=side_bet_lines(rules, analysis, deck),
                            simulation=simulation, version=__version__)
    name = f"par-{rules.game}-{document['rules_fingerprint'][:12]}"
    rtp = document["rtp"]["main_game_per_ante"]["decimal"]
    title = f"PAR sheet: {document['title']} ({where}, rules {document['rules_version']})"
    pack.add("PAR sheets", name, title, par_html(document), document,
             summary=f"main game RTP {rtp:.6%} per ante")
    return document


def add_rules_sheets(pack: Any, rules: Rules, where: str, par: dict[str, Any], profile: Any = None) -> None:
    from dealerpoker.certify.jurisdiction import languages
    from dealerpoker.certify.rules_sheet import LANGUAGES, rules_sheet_document, rules_sheet_html

    for language in LANGUAGES if profile is None else languages(profile):
        document = rules_sheet_document(rules.to_dict(), par, language)
        name = f"rules-{rules.game}-{par['rules_fingerprint'][:12]}-{language}"
        pack.add("Rules sheets", name, f"{document['title']} ({where}, {document['rules_version']}), "
                 f"{language}", rules_sheet_html(document), document,
                 summary=document["version_line"])


def add_rng_evidence(pack: Any, args: argparse.Namespace, bars: Any) -> None:
    from dealerpoker import __version__
    from dealerpoker.certify.rng import battery_html, run_battery

    master = (args.rng_seed or secrets.token_hex(32)).lower()
    fair = run_battery(master, args.rng_decks, args.nist_sequences,
                       progress=step(bars, "RNG: shuffling decks", args.rng_decks),
                       nist_progress=step(bars, "RNG: NIST SP 800-22", args.nist_sequences))
    control_sequences = min(args.nist_sequences, CONTROL_NIST_SEQUENCES)
    control = run_battery(master, args.rng_decks, control_sequences, biased=True,
                          progress=step(bars, "RNG control: biased decks", args.rng_decks),
                          nist_progress=step(bars, "RNG control: NIST", control_sequences))
    document = {"fair": fair, "control": control, "dealerpoker": __version__}
    summary = (f"shuffle {'passes' if fair['passed'] else 'FAILS'} the battery; the biased control "
               f"{'fails' if not control['passed'] else 'PASSES (no power)'}; master seed {master}")
    pack.add("RNG evidence", "rng-battery", f"RNG battery ({args.rng_decks:,} decks, "
             f"{args.nist_sequences} NIST sequences)", battery_html(fair, control, __version__), document,
             summary=summary)


def add_software_manifest(pack: Any) -> None:
    from dealerpoker import __version__
    from dealerpoker.certify.manifest import (
        build_manifest,
        differences,
        load_manifest,
        manifest_html,
        package_root,
    )

    root = package_root()
    installed = load_manifest(root)
    manifest = installed or build_manifest(root, __version__)
    if installed is None:
        summary = "no manifest installed (a development checkout): the files as they are now"
    else:
        found = differences(root, installed)
        summary = ("the installed files match the installed manifest" if not found else
                   f"{len(found)} file(s) differ from the installed manifest: "
                   + ", ".join(map(str, found[:5])))
    title = f"Software manifest ({len(manifest['files'])} critical files, build {manifest['build_id'][:12]})"
    pack.add("Software verification", "software-manifest", title, manifest_html(manifest), manifest,
             summary=summary)


def run_manifest(args: argparse.Namespace) -> int:
    from dealerpoker import __version__
    from dealerpoker.certify.manifest import package_root, write_manifest

    target = Path(args.manifest_out) if args.manifest_out else None
    path, manifest = write_manifest(package_root(), __version__, target)
    print(f"software manifest written to {path}: {len(manifest['files'])} critical files, "
          f"build id {manifest['build_id']}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    import json

    from dealerpoker.certify.manifest import (
        ManifestError,
        critical_files,
        load_manifest,
        package_root,
        seeded_hmacs,
    )

    root = package_root()
    try:
        manifest = load_manifest(root)
        names = sorted(manifest["files"]) if manifest is not None else critical_files(root)
        answer = seeded_hmacs(root, names, args.seed)
    except ManifestError as error:
        raise CertifyError(str(error)) from None
    answer["manifest"] = ("installed" if manifest is not None else
                          "none (a development checkout): the files found")
    status = 0
    if args.against:
        other = Path(args.against)
        if not other.is_dir():
            raise CertifyError(f"--against {args.against!r}: no such directory")
        theirs = {f["path"]: f["hmac"] for f in seeded_hmacs(other, names, args.seed)["files"]}
        differing = [f["path"] for f in answer["files"] if theirs.get(f["path"]) != f["hmac"]]
        answer["against"] = {"directory": str(other), "differing": differing, "match": not differing}
        status = 1 if differing else 0
    if args.json:
        json.dump(answer, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return status
    for entry in answer["files"]:
        print(f"{entry['hmac'] or 'MISSING':<64}  {entry['path']}")
    print(f"{answer['manifest_hmac']:<64}  (whole manifest, {len(answer['files'])} files; "
          f"seed {answer['seed']})")
    if args.against:
        against = answer["against"]
        print("MATCH: every file equals the copy" if against["match"] else
              f"DIFFER: {len(against['differing'])} file(s): " + ", ".join(against["differing"]))
    return status


def jurisdiction_profile(code: str | None) -> Any:
    """The shipped profile ``code`` (None without --jurisdiction); an unknown code is named."""
    if code is None:
        return None
    from dealerpoker.jurisdictions import shipped

    profiles = shipped()
    if code not in profiles:
        raise CertifyError(f"--jurisdiction {code!r}: no such profile "
                           f"(profiles: {', '.join(sorted(profiles))})")
    return profiles[code]


def approved_rules(profile: Any, chosen: list[tuple[Rules, str]]) -> list[tuple[Rules, str]]:
    """The rules the profile approves: the shipped rules it does not offer are left out; a --rules
    file it does not approve is an error naming why."""
    from dealerpoker.certify.jurisdiction import approved

    kept = []
    for rules, where in chosen:
        reason = approved(profile, rules)
        if reason is None:
            kept.append((rules, where))
        elif where != "shipped":
            raise CertifyError(f"--rules {rules.game}={where}: {reason}")
    if not kept:
        raise CertifyError(f"--jurisdiction {profile.id}: it approves none of the rules to certify")
    return kept


def add_jurisdiction(pack: Any, profile: Any) -> None:
    from dealerpoker.certify.jurisdiction import profile_document, profile_html

    document = profile_document(profile)
    unconfirmed = sum(1 for s in document["settings"].values() if s.get("unconfirmed"))
    title = f"Jurisdiction profile: {profile.name} ({profile.id})"
    pack.add("Jurisdiction", f"jurisdiction-{profile.id}", title, profile_html(document), document,
             summary=f"{len(document['settings'])} settings enforced, {unconfirmed} with an unconfirmed "
                     "clause")
