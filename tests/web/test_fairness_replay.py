"""A round played in the browser is verified in its replay (WebCrypto) and by `dealerpoker verify`
on its exported record; one changed byte of the record fails the command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dealerpoker.cli import main

from .test_web_table import Table
from .web_support import LiveServer

pytestmark = pytest.mark.browser


def test_a_browser_round_verifies_in_the_replay_and_with_the_command(
    desktop: Any, live_server: LiveServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = Table(desktop, live_server).open("texas-bonus")
    promised = live_server.api("GET", "/api/fairness", table.token)  # before the bet
    line = desktop.locator("#next-commitment")
    desktop.wait_for_function("document.querySelector('#next-commitment').dataset.commitment")
    assert line.get_attribute("data-commitment") == promised["next_commitment"]
    assert "Your next deal is committed" in line.inner_text()
    table.select(100)
    table.place("ante")
    table.deal()
    assert line.get_attribute("data-commitment") == promised["next_commitment"]
    assert "This deal is committed" in line.inner_text()
    table.act("bet")
    for _round in range(2):
        if "check" in table.decisions():
            table.act("check")
    (latest,) = live_server.api("GET", "/api/rounds", table.token, params={"limit": 1})["rounds"]
    assert latest["status"] == "settled"
    assert latest["fairness"]["commitment"] == promised["next_commitment"]
    after = live_server.api("GET", "/api/fairness", table.token)
    desktop.wait_for_function(
        f"document.querySelector('#next-commitment').dataset.commitment === '{after['next_commitment']}'")

    desktop.locator("#history-button").click()
    history = desktop.locator("#history-panel")
    history.locator(f"[data-round='{latest['id']}']").click()
    replay = history.locator(".replay")
    replay.wait_for()
    replay.locator(f"[data-verify='{latest['id']}']").click()
    result = replay.locator(f"[data-verify-result='{latest['id']}']")
    desktop.wait_for_function(
        f"document.querySelector(\"[data-verify-result='{latest['id']}']\")?.dataset.ok !== undefined")
    assert result.get_attribute("data-ok") == "true", result.inner_text()
    assert "VERIFIED" in result.inner_text()
    assert "signature: signed by the server's key" in result.inner_text()  # issue 15 defect 9
    assert "published rules: the rules are the ones the server publishes" in result.inner_text()

    record = live_server.api("GET", f"/api/rounds/{latest['id']}/record", table.token)
    path = tmp_path / "round.json"
    path.write_text(json.dumps(record, indent=1))
    assert main(["verify", "--round-file", str(path)]) == 0
    assert f"round {latest['id']}: VERIFIED" in capsys.readouterr().out
    text = path.read_text()
    at = text.index('"nonce": ') + len('"nonce": ')
    path.write_text(text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1:])
    assert main(["verify", "--round-file", str(path)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH  record_digest" in out and "MISMATCH  deck" in out
