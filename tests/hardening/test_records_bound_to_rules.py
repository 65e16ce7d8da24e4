"""Defect 9: a record verified with a forged paytable. Changing ``ante_paytable["two-pair"]`` from 1
to 50 and recomputing the fingerprint and the digest left a record that `verify` re-settled and
called ok. Records are now signed by the server (Ed25519, the deployment's key) and cite the full
SHA-256 of their rules, which the server publishes: `verify --server` / `--public-key --rules-dir`
fails such a record even though everything inside it is consistent."""

from __future__ import annotations

import copy
import json
import stat
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tests.live.conftest import LONG_SESSIONS, live_server
from tests.live.records_support import play_players
from tests.support.servers import ServeProcess

from dealerpoker.fairness.checks import record_digest
from dealerpoker.fairness.signature import rules_sha256, sign_record
from dealerpoker.fairness.verify import verify_record
from dealerpoker.server.signing import RecordSigner

COMMAND = str(Path(sys.executable).with_name("dealerpoker"))


def verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([COMMAND, "verify", *args], capture_output=True, text=True, timeout=120)


def mismatches(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line.split("MISMATCH  ", 1)[1].split(":")[0] for line in done.stdout.splitlines()
            if "MISMATCH  " in line]


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read())


def settled_casino_record(base: str, *, fold: bool = False) -> dict[str, Any]:
    """A settled Casino Hold'em round's record; ``fold``: the player folds at the flop (a settlement
    the ante paytable does not touch, whatever the cards)."""
    session = httpx.post(f"{base}/api/session", json={}, timeout=30).json()
    headers = {"Authorization": f"Bearer {session['token']}"}
    view = httpx.post(f"{base}/api/rounds", json={"game": "casino-holdem", "bets": {"ante": 100}},
                      headers=headers, timeout=30).json()
    while view["status"] == "open":
        action = "fold" if fold else "call" if "call" in view["legal_actions"] else view["legal_actions"][0]
        body = {"action": action, "step": len(view["steps"])}
        view = httpx.post(f"{base}/api/rounds/{view['id']}/actions", json=body, headers=headers,
                          timeout=30).json()
    record: dict[str, Any] = httpx.get(f"{base}/api/rounds/{view['id']}/record", headers=headers,
                                       timeout=30).json()
    return record


def forge_two_pair(record: dict[str, Any]) -> dict[str, Any]:
    """The forger's edit: two pair pays 50, fingerprint and digest recomputed to match."""
    forged = copy.deepcopy(record)
    assert forged["rules"]["ante_paytable"]["two-pair"] == 1
    forged["rules"]["ante_paytable"]["two-pair"] = 50
    forged["rules_fingerprint"] = rules_sha256(forged["rules"])
    forged["record_digest"] = record_digest(forged)
    return forged


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("deployment")
    key = folder / "signing.key"
    server = ServeProcess(f"sqlite:///{folder}/casino.db", log=folder / "serve.log",
                          extra=["--no-rtp", "--signing-key", str(key)])
    try:
        yield server.url, key, folder
    finally:
        server.stop()


@pytest.mark.slow
def test_the_key_is_generated_at_first_start_owner_only_and_published(deployment: Any) -> None:
    url, key, _folder = deployment
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    published = get(f"{url}/api/fairness/public-key")
    assert published["public_key"] == RecordSigner.from_file(str(key), create=False).public_key.hex()
    listing = get(f"{url}/api/rules")["rules"]
    assert {"casino-holdem", "texas-bonus"} <= {entry["game"] for entry in listing}
    assert all(len(entry["fingerprint"]) == 64 for entry in listing)


@pytest.mark.slow
def test_a_forged_paytable_fails_verification_even_when_consistent(deployment: Any) -> None:
    url, key, folder = deployment
    # Folded: a forged paytable then changes nothing the record's own re-settlement can see (a
    # raised round won with two pair would fail it, and random deals made that one run in ~10).
    record = settled_casino_record(url, fold=True)
    assert len(record["rules_fingerprint"]) == 64 and record["signature"]["algorithm"] == "ed25519"
    genuine = folder / "genuine.json"
    genuine.write_text(json.dumps(record))
    assert verify("--round-file", str(genuine), "--server", url).returncode == 0
    public_key = folder / "public-key.json"
    public_key.write_text(json.dumps(get(f"{url}/api/fairness/public-key")))
    approved = folder / "approved"
    approved.mkdir()
    (approved / "casino.json").write_text(json.dumps(get(f"{url}/api/rules/{record['rules_fingerprint']}")))
    offline = ["--public-key", str(public_key), "--rules-dir", str(approved)]
    assert verify("--round-file", str(genuine), *offline).returncode == 0

    forged = forge_two_pair(record)
    path = folder / "forged.json"
    path.write_text(json.dumps(forged))
    # Inside, the forgery is consistent: that alone is all a record's digest can show.
    alone = verify("--round-file", str(path))
    assert alone.returncode == 0 and "NOTE: signature and rules not checked" in alone.stdout
    for anchors in (["--server", url], offline):
        done = verify("--round-file", str(path), *anchors)
        assert done.returncode == 1, done.stdout + done.stderr
        assert {"signature", "rules_approved"} <= set(mismatches(done)), done.stdout

    # Re-signed by the forger's own key: not the deployment's.
    path.write_text(json.dumps(sign_record(forged, Ed25519PrivateKey.generate())))
    done = verify("--round-file", str(path), "--server", url)
    assert done.returncode == 1 and "signature.key_id" in mismatches(done)

    # Signed with the deployment's own key (a server run with unpublished rules): the rules fail.
    path.write_text(json.dumps(RecordSigner.from_file(str(key), create=False).sign(forged)))
    for anchors in (["--server", url], offline):
        done = verify("--round-file", str(path), *anchors)
        assert done.returncode == 1 and mismatches(done) == ["rules_approved"], done.stdout


def test_unusable_anchors_are_one_line_and_exit_2(deployment: Any) -> None:
    url, _key, folder = deployment
    record = folder / "genuine-2.json"
    record.write_text(json.dumps(settled_casino_record(url)))
    garbage = folder / "garbage.pem"
    garbage.write_text("-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----\n")
    empty = folder / "empty-dir"
    empty.mkdir()
    for anchors in (["--public-key", str(garbage)], ["--public-key", str(folder / "absent.pem")],
                    ["--rules-dir", str(empty)], ["--server", "http://127.0.0.1:9599"],
                    ["--server", "ftp://example.org"]):
        done = verify("--round-file", str(record), *anchors)
        assert done.returncode == 2 and done.stdout == "", (anchors, done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr


def test_live_records_are_signed_too(tmp_path: Path) -> None:
    url, players, _clock, _table = play_players(tmp_path)
    alice = {"Authorization": f"Bearer {players['alice'].token}"}
    with live_server(url, **LONG_SESSIONS) as (base, _app):  # alice's token was made on the fake clock
        record = httpx.get(f"{base}/api/tables/audit-t/rounds/1/record", headers=alice).json()
        key = bytes.fromhex(httpx.get(f"{base}/api/fairness/public-key").json()["public_key"])
        published = httpx.get(f"{base}/api/rules/{record['rules_fingerprint']}").json()
    approved = [rules_sha256(published["document"])]
    assert all(f.ok for f in verify_record(record, public_key=key, approved_rules=approved))
    forged = copy.deepcopy(record)
    forged["rules"]["bonus_paytable"][0]["pays"] += 1
    forged["rules_fingerprint"] = rules_sha256(forged["rules"])
    forged["record_digest"] = record_digest(forged)
    failed = {f.subject for f in verify_record(forged, public_key=key, approved_rules=approved) if not f.ok}
    assert {"signature", "rules_approved"} <= failed


def test_records_made_before_issue_15_still_read_with_their_64_bit_fingerprint(deployment: Any) -> None:
    url, _key, _folder = deployment
    record = settled_casino_record(url)
    legacy = {key: value for key, value in record.items() if key != "signature"}
    legacy["rules_fingerprint"] = record["rules_fingerprint"][:16]
    legacy["record_digest"] = record_digest(legacy)
    assert all(f.ok for f in verify_record(legacy))
    unsigned = [f.subject for f in verify_record(legacy, public_key=bytes(32)) if not f.ok]
    assert unsigned == ["signature"]


@pytest.mark.slow
def test_export_signs_every_record_with_the_deployments_key(deployment: Any) -> None:
    url, key, folder = deployment
    settled_casino_record(url)
    database = f"sqlite:///{folder}/casino.db"
    signed = folder / "export.jsonl"
    done = subprocess.run([COMMAND, "export", "--since", "2000-01-01", "--database", database,
                           "--signing-key", str(key), "--output", str(signed)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in signed.read_text().splitlines()]
    assert lines and all(line["signature"]["algorithm"] == "ed25519" for line in lines)
    checked = verify("--round-file", str(signed), "--server", url)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count(": VERIFIED") == len(lines) and "NOTE" not in checked.stdout

    unsigned = folder / "unsigned.jsonl"
    done = subprocess.run([COMMAND, "export", "--since", "2000-01-01", "--database", database,
                           "--signing-key", str(folder / "no-such.key"), "--output", str(unsigned)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "records written unsigned" in done.stderr
    refused = verify("--round-file", str(unsigned), "--server", url)
    assert refused.returncode == 1 and "the record is not signed" in refused.stdout


@pytest.mark.slow
def test_studio_records_are_signed_too(tmp_path: Path) -> None:
    """A studio table's rounds (no seeds: the card reports) are exported signed, verify with the
    deployment's key and published rules, and a forged paytable in one fails."""
    import asyncio
    import sqlite3

    from tests.live.test_studio_records import FakeClock, _rounds

    asyncio.run(_rounds(f"sqlite:///{tmp_path}/studio.db", FakeClock()))
    key = tmp_path / "signing.key"
    public = tmp_path / "public-key.json"
    public.write_text(json.dumps(RecordSigner.from_file(str(key)).public_document()))
    approved = tmp_path / "approved"
    approved.mkdir()
    with sqlite3.connect(tmp_path / "studio.db") as connection:
        for fingerprint, document in connection.execute("SELECT fingerprint, document FROM rules_documents"):
            (approved / f"{fingerprint}.json").write_text(document)
    export = tmp_path / "studio.jsonl"
    command = [COMMAND, "export", "--since", "2000-01-01", "--database", f"sqlite:///{tmp_path}/studio.db",
               "--signing-key", str(key), "--output", str(export)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in export.read_text().splitlines()]
    assert len(records) == 2 and all(r["dealing"] == "studio" and "signature" in r for r in records)
    anchors = ["--public-key", str(public), "--rules-dir", str(approved)]
    checked = verify("--round-file", str(export), *anchors)
    assert checked.returncode == 0 and "2 of 2 rounds verified" in checked.stdout, checked.stdout

    forged = copy.deepcopy(records[0])
    forged["rules"]["bonus_paytable"][0]["pays"] += 20
    forged["rules_fingerprint"] = rules_sha256(forged["rules"])
    forged["record_digest"] = record_digest(forged)
    path = tmp_path / "forged-studio.json"
    path.write_text(json.dumps(forged))
    assert verify("--round-file", str(path)).returncode == 0  # consistent inside
    done = verify("--round-file", str(path), *anchors)
    assert done.returncode == 1 and {"signature", "rules_approved"} <= set(mismatches(done)), done.stdout
