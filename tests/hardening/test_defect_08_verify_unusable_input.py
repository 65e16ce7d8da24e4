"""Defect 8: `dealerpoker verify` on unusable input -- one clear line and exit 2, never a traceback;
in an export a bad line is reported with its number and the other records are still checked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.fairness.fairness_records import play_record

from dealerpoker.cli import main

UNUSABLE = {
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "deep-object.json": '{"a":' * 50 + "1" + "}" * 50,
    "nan.json": '{"round_id": "r-1", "nonce": NaN}',
    "infinity.json": '{"round_id": "r-1", "amount": -Infinity}',
    "array.json": "[]",
    "null.json": "null",
    "number.json": "7",
    "text.json": "this is not json",
    "empty.json": "",
}


@pytest.mark.parametrize("name", sorted(UNUSABLE))
def test_unusable_file_is_one_line_and_exit_2(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.write_text(UNUSABLE[name])
    assert main(["verify", "--round-file", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"dealerpoker verify: error: {path}: "), captured.err


def test_deep_nesting_in_a_fresh_process_prints_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    command = str(Path(sys.executable).with_name("dealerpoker"))
    done = subprocess.run([command, "verify", "--round-file", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "nested deeper than" in done.stderr


def test_bad_lines_of_an_export_are_numbered_and_the_rest_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = [play_record(nonce=n, round_id=f"r-{n}") for n in range(2)]
    lines = [json.dumps(good[0]), '{"round_id": NaN}', "[[[[", json.dumps(good[1]), "null"]
    export = tmp_path / "export.jsonl"
    export.write_text("\n".join(lines) + "\n")
    assert main(["verify", "--round-file", str(export)]) == 2
    captured = capsys.readouterr()
    assert "round r-0: VERIFIED" in captured.out and "round r-1: VERIFIED" in captured.out
    assert "2 of 2 rounds verified; 3 unusable line(s) not checked" in captured.out
    errors = captured.err.splitlines()
    assert [line.split(": ")[3] for line in errors] == ["line 2", "line 3", "line 5"]
    assert "NaN is not a JSON number" in errors[0] and "null" in errors[2]


def test_a_bad_line_and_a_failed_record_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    forged = play_record(nonce=4, round_id="r-4")
    forged["deck"][0], forged["deck"][1] = forged["deck"][1], forged["deck"][0]
    export = tmp_path / "export.jsonl"
    export.write_text(json.dumps(forged) + "\nnot json\n")
    assert main(["verify", "--round-file", str(export), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] is False and result["unusable_lines"][0]["line"] == 2
