"""`dealerpoker operator sign`: the signature headers a casino sends, made from the shell; the
secret from the environment or a file, never the command line, never printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealerpoker.cli import main
from dealerpoker.operator_signature import verify_request

SECRET = "operator-demo-secret-0123"
TARGET = "/operator/v1/transactions?since=2026-12-03&until=2026-12-04"


def headers_of(printed: str) -> dict[str, str]:
    pairs = [line.split(": ", 1) for line in printed.splitlines()]
    return {name: value for name, value in pairs}


def test_the_printed_headers_sign_the_method_and_target_with_the_secret_from_the_environment(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_OPERATOR_SECRET", SECRET)
    assert main(["operator", "sign", "--operator", "demo", "--secret-env", "DEMO_OPERATOR_SECRET",
                 "get", TARGET]) == 0
    printed = capsys.readouterr().out
    headers = headers_of(printed)
    assert list(headers) == ["X-Operator-Id", "X-Signature-Timestamp", "X-Signature-Nonce", "X-Signature"]
    assert headers["X-Operator-Id"] == "demo" and SECRET not in printed
    verify_request(SECRET, "GET", TARGET, b"", headers)
    with pytest.raises(ValueError, match="wrong X-Signature"):  # bound to its path and query
        verify_request(SECRET, "GET", TARGET.replace("04", "05"), b"", headers)
    assert main(["operator", "sign", "--secret-env", "DEMO_OPERATOR_SECRET", "GET", TARGET]) == 0
    again = headers_of(capsys.readouterr().out)
    assert "X-Operator-Id" not in again and again["X-Signature-Nonce"] != headers["X-Signature-Nonce"]


def test_a_body_is_signed_byte_for_byte_with_the_secret_from_a_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEALERPOKER_OPERATOR_SECRET", raising=False)
    (tmp_path / "secret").write_text(SECRET + "\n")
    body = b'{"player":"u-1","currency":"EUR","game":"texas-bonus","mode":"demo"}'
    (tmp_path / "body.json").write_bytes(body)
    assert main(["operator", "sign", "--secret-file", str(tmp_path / "secret"), "--body",
                 str(tmp_path / "body.json"), "POST", "/operator/v1/launch"]) == 0
    headers = headers_of(capsys.readouterr().out)
    verify_request(SECRET, "POST", "/operator/v1/launch", body, headers)
    with pytest.raises(ValueError, match="wrong X-Signature"):
        verify_request(SECRET, "POST", "/operator/v1/launch", body + b" ", headers)


@pytest.mark.parametrize(("arguments", "problem"), [
    (["GET", TARGET], "the operator's shared secret is required: set $DEALERPOKER_OPERATOR_SECRET"),
    (["--secret-file", "/nonexistent/secret", "GET", TARGET],
     "--secret-file /nonexistent/secret: cannot read it"),
    (["--secret-env", "SOME_SECRET", "FETCH", TARGET], "METHOD: expected one of GET, POST"),
    (["--secret-env", "SOME_SECRET", "GET", "operator/v1/transactions"], "TARGET: expected the path as sent"),
    (["--secret-env", "SOME_SECRET", "GET", "/operator/v1/x?a=b c"], "no spaces"),
    (["--secret-env", "SOME_SECRET", "--body", "/nonexistent/body", "POST", "/x"],
     "--body /nonexistent/body"),
])
def test_bad_input_exits_2_naming_the_problem_and_prints_no_header(
        arguments: list[str], problem: str, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEALERPOKER_OPERATOR_SECRET", raising=False)
    monkeypatch.setenv("SOME_SECRET", SECRET)
    assert main(["operator", "sign", *arguments]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and problem in printed.err and SECRET not in printed.err
