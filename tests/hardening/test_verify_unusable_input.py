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


COMMAND = str(Path(sys.executable).with_name("dealerpoker"))


def run_verify(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """`dealerpoker verify` as a user runs it: a process of its own."""
    return subprocess.run([COMMAND, "verify", *args], input=stdin, capture_output=True, text=True, timeout=60)


def test_deep_nesting_in_a_fresh_process_prints_no_traceback(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    done = run_verify("--round-file", str(path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "nested deeper than" in done.stderr


@pytest.mark.parametrize("name", ["deep.json", "nan.json", "infinity.json", "array.json", "null.json"])
def test_unusable_input_as_a_user_runs_it(name: str, tmp_path: Path) -> None:
    """The reported cases, in a process of its own, from a file and from standard input."""
    path = tmp_path / name
    path.write_text(UNUSABLE[name])
    from_stdin = run_verify("--round-file", "-", stdin=UNUSABLE[name])
    for done in (run_verify("--round-file", str(path)), from_stdin):
        assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("dealerpoker verify: error: ")
        assert "Traceback" not in done.stderr


def test_an_export_with_bad_lines_as_a_user_runs_it(tmp_path: Path) -> None:
    good = [play_record(nonce=n, round_id=f"r-{n}") for n in range(2)]
    export = tmp_path / "export.jsonl"
    export.write_text("\n".join([json.dumps(good[0]), "[" * 5000 + "]" * 5000, json.dumps(good[1]),
                                 '{"nonce": Infinity}']) + "\n")
    done = run_verify("--round-file", str(export))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "round r-0: VERIFIED" in done.stdout and "round r-1: VERIFIED" in done.stdout
    assert [line.split(": ")[3] for line in done.stderr.splitlines()] == ["line 2", "line 4"]
    assert "Traceback" not in done.stderr


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
