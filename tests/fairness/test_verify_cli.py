"""`dealerpoker verify` end to end on files, as a player or auditor runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fairness_records import SERVER_SEED, play_record

from dealerpoker.cli import main
from dealerpoker.fairness import commitment, deck_order


def deal(commitment_hex: str, nonce: str, *extra: str, seed: str = SERVER_SEED) -> list[str]:
    """The arguments of `dealerpoker verify` for a deal with client seed "abc"."""
    return ["verify", "--server-seed", seed, "--commitment", commitment_hex, "--client-seed", "abc",
            "--nonce", nonce, *extra]  # fmt: skip


def test_verify_a_deal_without_a_record(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(deal(commitment(SERVER_SEED), "0"))
    out = capsys.readouterr().out
    assert status == 0
    assert "VERIFIED" in out and "fairness.commitment" in out and "| flop " in out


def test_verify_a_deal_with_a_wrong_commitment(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(deal("ab" * 32, "0"))
    out = capsys.readouterr().out
    assert status == 1
    assert "FAILED: 1 mismatch(es): fairness.commitment" in out


def test_verify_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(deal(commitment(SERVER_SEED), "9", "--json"))
    result = json.loads(capsys.readouterr().out)
    assert status == 0 and result["ok"] is True
    assert result["rounds"][0]["deck"] == list(deck_order(SERVER_SEED, "abc", 9))


def test_missing_options_and_bad_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--server-seed", SERVER_SEED]) == 2
    assert "--commitment, --client-seed, --nonce needed" in capsys.readouterr().err
    assert (
        main(["verify", "--server-seed", "xyz", "--commitment", "00", "--client-seed", "a", "--nonce", "0"])
        == 1
    )
    assert "server seed must be exactly 64 hexadecimal characters" in capsys.readouterr().out
    assert (
        main(
            [
                "verify",
                "--server-seed",
                SERVER_SEED,
                "--commitment",
                "00",
                "--client-seed",
                "a",
                "--nonce",
                "-1",
            ]
        )
        == 1
    )
    assert "nonce must be between 0" in capsys.readouterr().out


def test_verify_a_round_file_and_a_one_byte_change(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = play_record("casino-holdem", {"ante": 100, "aa": 100}, ("raise",), nonce=11)
    good = tmp_path / "round.json"
    good.write_text(json.dumps(record, indent=2))
    assert (
        main(
            [
                "verify",
                "--round-file",
                str(good),
                "--server-seed",
                SERVER_SEED,
                "--commitment",
                commitment(SERVER_SEED),
                "--client-seed",
                "player-chosen",
                "--nonce",
                "11",
            ]
        )
        == 0
    )
    assert "round r-1: VERIFIED" in capsys.readouterr().out
    text = good.read_text()
    position = text.index('"returned": ') + len('"returned": ')
    digit = text[position]
    bad = tmp_path / "bad.json"
    bad.write_text(text[:position] + ("1" if digit != "1" else "2") + text[position + 1 :])
    assert main(["verify", "--round-file", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH  record_digest" in out
    assert "FAILED" in out


def test_verify_an_export_of_many_rounds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = [play_record(nonce=n, round_id=f"r-{n}") for n in range(3)]
    records[2]["deck"][0], records[2]["deck"][1] = records[2]["deck"][1], records[2]["deck"][0]
    export = tmp_path / "export.jsonl"
    export.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["verify", "--round-file", str(export)]) == 1
    out = capsys.readouterr().out
    assert "2 of 3 rounds verified, 1 FAILED" in out
    assert "round r-2: MISMATCH  deck[0]" in out
    assert main(["verify", "--round-file", str(export), "--nonce", "1"]) == 2


def test_unreadable_round_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--round-file", str(tmp_path / "none.json")]) == 2
    assert "none.json" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{"round_id": ')
    assert main(["verify", "--round-file", str(broken)]) == 2
    assert "not JSON" in capsys.readouterr().err
