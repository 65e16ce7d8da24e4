"""The README's operator walkthrough, run as written (issue 33): its shell blocks are read from
README.md (no copy of them here) and run with bash, in order, in a directory standing for a fresh
clone (the project's ``.venv`` linked into it), while a server stands for ``make run``.

Only two things differ from a newcomer's terminal: the ports (8000, 8001 and 9000 become free
ones, as other work may hold those on a shared machine; the README's own ports are checked to be
distinct from ``make run``'s), and step 4, played in the browser there, is played here over HTTP
exactly as the casino's page does it (its ``/launch``, then the table's API). Everything else,
the heredoc, the environment variables, ``$(date ...)``, the pipe into ``curl -H @-``, runs as
printed; long-running commands (the casino, ``serve``) are started in the background, and
"restart the casino" stops the one running first.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import textwrap
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.support.servers import ServeProcess, free_port
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## In a casino: the reference operator"
MAKE_RUN_PORT = 8000
LONG_RUNNING = re.compile(r"\.venv/bin/dealerpoker (operator-demo|serve)\b")
ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$|^[A-Z_][A-Z0-9_]*=\"[^\"]*\"$")

pytestmark = pytest.mark.slow


@dataclass
class Command:
    step: int
    text: str
    says: list[str] = field(default_factory=list)
    """What the README says it prints (its ``# it says: ...`` lines)."""


def walkthrough(readme: str) -> list[Command]:
    """The shell commands of the README's walkthrough, in order, each with its step (from the
    ``# N.`` comment before it): a line continued with ``\\`` and a heredoc are one command."""
    section = readme.split(SECTION, 1)[1].split("\n## ", 1)[0]
    commands: list[Command] = []
    step = 0
    for block in re.findall(r"^( *)```sh\n(.*?)^\1```", section, re.S | re.M):
        lines = textwrap.dedent(block[1]).splitlines()
        while lines:
            line = lines.pop(0)
            numbered = re.match(r"#\s*(\d+)\.", line)
            if numbered:
                step = int(numbered.group(1))
            if line.startswith("# it says:"):
                commands[-1].says.append(line.removeprefix("# it says:").strip())
            if not line.strip() or line.startswith("#"):
                continue
            text = line
            while text.endswith("\\"):
                text += "\n" + lines.pop(0)
            heredoc = re.search(r"<<'?(\w+)'?", text)
            if heredoc:
                while True:
                    body = lines.pop(0)
                    text += "\n" + body
                    if body == heredoc.group(1):
                        break
            commands.append(Command(step, text))
    return commands


def port_of(command: str) -> int:
    found = re.search(r"--port (\d+)", command)
    assert found, f"no --port in {command!r}"
    return int(found.group(1))


class Terminal:
    """The newcomer's terminals: bash in the clone's directory, the README's ports mapped to free
    ones, background processes for the long-running commands."""

    def __init__(self, directory: Path, ports: dict[int, int], logs: Path) -> None:
        self.directory, self.ports, self.logs = directory, ports, logs
        self.running: dict[str, tuple[subprocess.Popen[bytes], Path]] = {}
        self.assignments: list[str] = []

    def local(self, text: str) -> str:
        for written, used in self.ports.items():
            text = re.sub(rf"(?<![0-9]){written}(?![0-9])", str(used), text)
        return text

    def run(self, command: Command) -> str:
        """Its output (a long-running one: started, and its first lines once it answers)."""
        text = self.local(command.text)
        if ASSIGNMENT.match(text):
            self.assignments.append(text)
            return ""
        script = "\n".join([*self.assignments, text])
        found = LONG_RUNNING.search(text)
        if found:
            return self._start(found.group(1), script)
        done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=self.directory,
                              capture_output=True, timeout=120)
        assert done.returncode == 0, f"{text!r} failed ({done.returncode}):\n{done.stdout!r}\n{done.stderr!r}"
        return done.stdout.decode()

    def _start(self, program: str, script: str) -> str:
        self.stop(program)  # "restart the casino": Ctrl-C in its terminal first
        log = self.logs / f"{program}-{len(list(self.logs.iterdir()))}.log"
        with log.open("wb") as output:
            process = subprocess.Popen(["bash", "-c", script], cwd=self.directory, stdout=output,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        self.running[program] = (process, log)
        port = port_of(script)

        def answers() -> bool:
            assert process.poll() is None, f"{program} exited:\n{log.read_text()}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
                    return bool(answer.status == 200)
            except OSError:
                return False

        until(answers, f"{program} answers on port {port}", timeout=120)
        return log.read_text()

    def stop(self, program: str) -> None:
        found = self.running.pop(program, None)
        if found is None:
            return
        process, _ = found
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends to the terminal's process group
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)

    def stop_all(self) -> None:
        for program in list(self.running):
            self.stop(program)


def printed(log: Path, text: str) -> Callable[[], bool]:
    return lambda: text in log.read_text()


def call(method: str, url: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    raw = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, raw, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read() or b"null")


def play(game_url: str, token: str, rounds: int) -> int:
    """Step 4 over HTTP: ``rounds`` Casino Hold'em rounds (ante 5 EUR, one of the casino's chips),
    raised, or folded when the raise is refused (a wallet fault); the number settled."""
    settled = 0
    for attempt in range(rounds):
        status, view = call("POST", f"{game_url}/api/rounds",
                            {"game": "casino-holdem", "bets": {"ante": 500}}, token)
        if status != 200:  # the casino failed the ante's bet: refused, rolled back, nothing played
            continue
        for action in ("raise", "fold"):
            status, after = call("POST", f"{game_url}/api/rounds/{view['id']}/actions",
                                 {"action": action, "step": len(view["steps"])}, token)
            if status == 200:
                settled += after["status"] == "settled"
                break
        else:
            raise AssertionError(f"round {attempt} ({view['id']}) could be neither raised nor folded: "
                                 f"{after}")
    return settled


@pytest.fixture
def clone(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    directory = tmp_path / "dealerpoker"
    directory.mkdir()
    (directory / ".venv").symlink_to(ROOT / ".venv")
    logs = tmp_path / "logs"
    logs.mkdir()
    yield directory, logs


def test_the_readme_operator_walkthrough_works_as_written_beside_make_run(clone: tuple[Path, Path]) -> None:
    readme = (ROOT / "README.md").read_text()
    commands = walkthrough(readme)
    assert [command.step for command in commands] == sorted(command.step for command in commands)
    assert {command.step for command in commands} == {1, 2, 3, 5, 6, 7}, commands
    serve = next(command for command in commands if ".venv/bin/dealerpoker serve" in command.text)
    casino = next(command for command in commands if "operator-demo" in command.text)
    written = {port_of(serve.text), port_of(casino.text)}
    assert f"http://127.0.0.1:{MAKE_RUN_PORT}" in readme  # make run's, which the walkthrough leaves alone
    assert MAKE_RUN_PORT not in written and len(written) == 2

    directory, logs = clone
    ports = {port: free_port() for port in sorted(written | {MAKE_RUN_PORT})}
    terminal = Terminal(directory, ports, logs)
    game_url, casino_url = (f"http://127.0.0.1:{ports[port_of(c.text)]}" for c in (serve, casino))
    make_run = ServeProcess(f"sqlite:///{directory}/dealerpoker.db", port=ports[MAKE_RUN_PORT],
                            log=logs / "make-run.log")
    try:
        def run_step(step: int) -> list[str]:
            """The outputs of the step's commands (an assignment, ``TARGET=...``, prints none)."""
            chosen = [command for command in commands if command.step == step]
            said = [terminal.run(command) for command in chosen]
            return [output for command, output in zip(chosen, said, strict=True)
                    if not ASSIGNMENT.match(terminal.local(command.text))]

        for step in (1, 2, 3):
            run_step(step)
        serve_log = terminal.running["serve"][1]
        for said in serve.says:  # "it says: dealerpoker serve: serving the casino at ..."
            expected = terminal.local(said).split("(")[0].strip()
            until(printed(serve_log, expected), f"serve says {expected!r}")

        # 4. the casino's page: Play (its /launch, server to server), then rounds in the table
        status, launched = call("POST", f"{casino_url}/launch", {"player": "alice", "currency": "EUR",
                                                                 "game": "casino-holdem"})
        assert status == 200 and launched["url"].startswith(game_url), launched
        status, session = call("POST", f"{game_url}/api/session", {"launch": launched["launch_token"]})
        assert status == 200, session
        assert play(game_url, session["token"], 3) == 3

        mine, reconciled, agreed = run_step(5)
        theirs = json.loads(mine)["transactions"]
        assert theirs and all(row["transaction_id"] in reconciled for row in theirs), reconciled
        assert json.loads(agreed)["agree"], agreed

        run_step(6)  # the casino again, with faults
        play(game_url, session["token"], 6)

        def settled_up() -> Any:
            found = json.loads(terminal.run(next(c for c in commands if "/admin/reconcile" in c.text)))
            return found if found["pending"] == 0 else None

        found = until(settled_up, "every win owed delivered (the outbox retried through the faults)",
                      timeout=180)
        assert found["agree"] and found["differences"] == [], found
        assert found["net"]["dealerpoker"] == found["net"]["operator"]

        listed, answered = run_step(7)
        signed = json.loads(answered)
        assert "transactions" in signed, answered
        ids = {row["transaction_id"] for row in signed["transactions"]}
        # the casino's signed request answers what `dealerpoker reconcile` prints: the same day's list
        assert ids and all(transaction in listed for transaction in ids)
        assert f": {len(signed['transactions'])} transaction(s)" in listed.splitlines()[0], listed
    finally:
        terminal.stop_all()
        make_run.stop()
    left = sorted(path.name for path in directory.iterdir() if path.name != ".venv")
    assert "walkthrough.db" in left and "operator.db" in left and "operators.toml" in left, left
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "--no-index", *left],
                             capture_output=True, text=True)
    assert sorted(ignored.stdout.split()) == left, f"the walkthrough leaves files git would add: {left}"
