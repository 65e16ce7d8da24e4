"""``dealerpoker serve`` says in plain words where it serves, and refuses a port already in use
(another serve, such as ``make run`` on 8000) saying so, instead of a traceback in JSON lines
(issue 33, the operator walkthrough)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from tests.support.servers import DEALERPOKER, ServeProcess, answers

import dealerpoker.tables


@pytest.mark.slow
def test_serve_says_where_it_serves_and_refuses_a_port_in_use(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    tables = tmp_path / "tables.toml"
    tables.write_text((Path(dealerpoker.tables.__file__).parent / "tables.toml").read_text("utf-8"), "utf-8")
    first = ServeProcess(f"sqlite:///{tmp_path}/first.db", log=log,
                         extra=["--no-rtp", "--tables", str(tables)])
    try:
        second = subprocess.run([DEALERPOKER, "serve", "--port", str(first.port), "--no-rtp",
                                 "--database", f"sqlite:///{tmp_path}/second.db"],
                                capture_output=True, text=True, timeout=120)
    finally:
        first.stop()
    assert second.returncode == 2
    assert f"port {first.port} on 127.0.0.1 is already in use" in second.stderr
    assert f"--port {first.port + 1}" in second.stderr and "Traceback" not in second.stderr
    said = log.read_text()
    assert f"dealerpoker serve: serving the casino at http://127.0.0.1:{first.port}/" in said
    assert f"live tables from {tables} only: the shipped example tables are not served" in said


@pytest.mark.slow
def test_serve_writes_its_threads_stacks_on_sigusr1_and_goes_on(tmp_path: Path) -> None:
    """``kill -USR1`` makes a server that seems hung say where each thread is (in its log), and
    it goes on serving: what the tests' start-up deadline shows before it kills a silent server."""
    server = ServeProcess(f"sqlite:///{tmp_path}/casino.db", log=tmp_path / "serve.log", extra=["--no-rtp"])
    try:
        server.dump_stacks()
        assert server.stacks_written(since=0), server.output()
        assert "uvicorn" in server.output()  # the main thread's stack: serving
        assert answers(server.url)
    finally:
        server.stop()
