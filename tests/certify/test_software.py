"""Software verification: the manifest, the seeded HMACs (checked against a second implementation
written here), serve refusing to start on a changed file, and a running server halting play."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tests.support.servers import ServeProcess
from tests.support.waiting import until

from dealerpoker.certify.manifest import MANIFEST_NAME, package_root

SEED = "5eedc0ffee"


def hmac_sha256(key: bytes, message: bytes) -> str:
    """RFC 2104 from its definition (not the hmac module): H((K ^ opad) || H((K ^ ipad) || m))."""
    block = key.ljust(64, b"\0") if len(key) <= 64 else hashlib.sha256(key).digest().ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in block) + message).digest()
    return hashlib.sha256(bytes(b ^ 0x5C for b in block) + inner).hexdigest()


def cli(site: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    result = subprocess.run([sys.executable, "-c", "import sys; from dealerpoker.cli import main; "
                             "sys.exit(main())", *args], env=env, capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A copy of the installed package that the subprocesses import (PYTHONPATH), with a manifest."""
    root = tmp_path / "site"
    shutil.copytree(package_root(), root / "dealerpoker",
                    ignore=shutil.ignore_patterns("__pycache__", MANIFEST_NAME))
    result = cli(root, "certify", "manifest")
    assert str(root / "dealerpoker" / MANIFEST_NAME) in result.stdout
    return root


def manifest_of(site: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((site / "dealerpoker" / MANIFEST_NAME).read_text())  # type: ignore[no-any-return]


def test_the_manifest_lists_every_critical_file_with_its_sha256(site: Path) -> None:
    manifest = manifest_of(site)
    files = manifest["files"]
    package = site / "dealerpoker"
    for name in ("cli/serve.py", "certify/manifest.py", "web/index.html", "web/i18n/de.json",
                 "games/rules/texas-bonus.toml", "tables/tables.toml"):
        assert name in files, name
    assert any(name.startswith("server/migrations/versions/") for name in files)
    for name, digest in files.items():
        assert hashlib.sha256((package / name).read_bytes()).hexdigest() == digest
    listing = "".join(f"{name}\t{digest}\n" for name, digest in sorted(files.items()))
    assert manifest["build_id"] == hashlib.sha256(listing.encode()).hexdigest()


def test_seeded_hmacs_equal_an_independent_computation(site: Path, tmp_path: Path) -> None:
    answer = json.loads(cli(site, "certify", "verify", "--seed", SEED, "--json").stdout)
    package = site / "dealerpoker"
    key = bytes.fromhex(SEED)
    expected = {name: hmac_sha256(key, (package / name).read_bytes()) for name in manifest_of(site)["files"]}
    assert {f["path"]: f["hmac"] for f in answer["files"]} == expected
    listing = "".join(f"{name}\t{value}\n" for name, value in sorted(expected.items()))
    assert answer["manifest_hmac"] == hmac_sha256(key, listing.encode())
    other = json.loads(cli(site, "certify", "verify", "--seed", "00" + SEED, "--json").stdout)
    assert other["manifest_hmac"] != answer["manifest_hmac"]  # the seed makes a stored answer useless
    # against a copy the lab holds, with one file changed
    copy = tmp_path / "lab-copy"
    shutil.copytree(package, copy)
    (copy / "games/rules/casino-holdem.toml").write_text((copy / "games/rules/casino-holdem.toml").read_text()
                                                         + "\n# changed\n")
    result = cli(site, "certify", "verify", "--seed", SEED, "--against", str(copy), check=False)
    assert result.returncode == 1 and "DIFFER: 1 file(s): games/rules/casino-holdem.toml" in result.stdout
    bad = cli(site, "certify", "verify", "--seed", "xyz", check=False)
    assert bad.returncode == 2 and "seed" in bad.stderr


def test_serve_refuses_to_start_when_a_critical_file_changed(site: Path, tmp_path: Path) -> None:
    page = site / "dealerpoker" / "web" / "index.html"
    page.write_text(page.read_text() + "<!-- changed -->")
    result = cli(site, "serve", "--port", "1", "--database", f"sqlite:///{tmp_path}/c.db", check=False)
    assert result.returncode == 2
    assert "not starting" in result.stderr and "web/index.html (changed)" in result.stderr


def get(url: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def post(url: str, body: dict, token: str | None = None) -> tuple[int, dict]:  # type: ignore[type-arg]
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@pytest.mark.slow
def test_a_running_server_halts_new_rounds_within_one_interval(site: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(site)}
    server = ServeProcess(f"sqlite:///{tmp_path}/casino.db", log=tmp_path / "serve.log",
                          extra=["--verify-interval", "0.5", "--no-rtp"], env=env)
    try:
        status, health = get(f"{server.url}/healthz")
        assert status == 200 and health["software"]["state"] == "ok"
        assert health["software"]["build_id"] == manifest_of(site)["build_id"]  # the copy is what runs
        _, session = post(f"{server.url}/api/session", {})
        token = session["token"]
        opening = {"game": "casino-holdem", "bets": {"ante": 100}}
        status, view = post(f"{server.url}/api/rounds", opening, token)
        assert status == 200, view
        rules = site / "dealerpoker" / "games" / "rules" / "casino-holdem.toml"
        original = rules.read_text()
        rules.write_text(original.replace("flush = 2", "flush = 20"))
        status, health = until(lambda: _answered(get(f"{server.url}/healthz"), 503), "the server halts")
        assert status == 503 and health["status"] == "halted", health
        assert {"path": "games/rules/casino-holdem.toml", "problem": "changed"} in health["software"]["files"]
        status, refused = post(f"{server.url}/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}},
                               token)
        assert status == 503 and refused["error"] == "software_unverified", refused
        # the round already in play finishes
        status, done = post(f"{server.url}/api/rounds/{view['id']}/actions", {"action": "fold", "step": 1},
                            token)
        assert status == 200, done
        with urllib.request.urlopen(f"{server.url}/metrics", timeout=10) as answer:
            assert "dealerpoker_software_verified 0.0" in answer.read().decode()
        # the file put back: the halt holds (two more checks) until a restart verifies again
        rules.write_text(original)
        seen = health["software"]["checks"]
        status, health = until(lambda: _checked(get(f"{server.url}/healthz"), seen + 2), "two more checks")
        assert health["software"]["checks"] >= seen + 2
        assert status == 503 and health["software"]["state"] == "mismatch"
    finally:
        server.stop()


def _answered(answer: tuple[int, Any], status: int) -> tuple[int, Any] | None:
    """The answer if it has this status (for ``until``)."""
    return answer if answer[0] == status else None


def _checked(answer: tuple[int, Any], checks: int) -> tuple[int, Any] | None:
    """The health answer once the server has run ``checks`` software checks (for ``until``)."""
    return answer if answer[1]["software"]["checks"] >= checks else None
