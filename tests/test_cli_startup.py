"""The command line starts fast because each command imports only what it needs (issue 19).

Not a timing test (timings are benchmarks): a check, in a fresh interpreter, of which heavy
libraries a command has imported. `--help` needs none of them; `settle` needs the game engine
(numpy for the evaluator's tables) but not numba, the web framework or the database layer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("numpy", "numba", "fastapi", "starlette", "sqlalchemy", "websockets", "uvicorn", "redis")

PROBE = """
import contextlib, io, json, sys
from dealerpoker.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        status = main(sys.argv[1:])
    except SystemExit as done:
        status = done.code
print(json.dumps({"status": status, "loaded": sorted({m.split(".")[0] for m in sys.modules})}))
"""


def _loaded_by(*argv: str) -> set[str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["status"] == 0, done.stderr
    return set(report["loaded"]) & set(HEAVY)


def test_importing_the_cli_imports_none_of_the_heavy_libraries() -> None:
    probe = "import json, sys; import dealerpoker.cli; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(json.loads(done.stdout))
    assert {m.split(".")[0] for m in loaded} & set(HEAVY) == set()
    assert not any(m.startswith("dealerpoker.cli.") for m in loaded)  # no subcommand module


def test_help_imports_none_of_the_heavy_libraries() -> None:
    assert _loaded_by("--help") == set()


def test_help_imports_no_subcommand_module_yet_lists_every_command() -> None:
    probe = PROBE.replace('"loaded": sorted({m.split(".")[0] for m in sys.modules})',
                          '"loaded": sorted(m for m in sys.modules if m.startswith("dealerpoker.cli."))')
    done = subprocess.run([sys.executable, "-c", probe, "--help"], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1])["loaded"] == []
    shown = subprocess.run([sys.executable, "-c", "from dealerpoker.cli import main; main(['--help'])"],
                           capture_output=True, text=True, env={**os.environ, "COLUMNS": "200"}).stdout
    from dealerpoker.cli import SUBCOMMANDS

    for name, help_text in SUBCOMMANDS.items():
        assert name in shown and help_text in shown


def test_settle_imports_the_engine_but_not_numba_or_the_server() -> None:
    loaded = _loaded_by("settle", "texas-bonus", "--player", "As Kd", "--dealer", "Qh Qc", "--board",
                        "2c 7d 9h Js 3s", "--bet", "ante=100", "--actions", "bet,check,bet")
    assert loaded == {"numpy"}


def test_advise_at_the_flop_and_turn_needs_no_numba() -> None:
    """advise enumerates with numpy over the evaluator's tables: no numba to import or load."""
    assert _loaded_by("advise", "casino-holdem", "--player", "As Kd", "--board", "2c 7d 9h") == {"numpy"}
    assert _loaded_by("advise", "texas-bonus", "--player", "As Kd", "--board", "2c 7d 9h Js") == {"numpy"}


BUILT_SERVERS = """
import json, sys
from dealerpoker.server import Settings, create_app
from dealerpoker.server.operators.config import parse_operators
create_app(Settings(database_url="sqlite://"))
without = "aiohttp" in sys.modules
create_app(Settings(database_url="sqlite://", operators=parse_operators(sys.argv[1])))
print(json.dumps([without, "aiohttp" in sys.modules]))
"""


@pytest.mark.slow  # two apps built in a fresh interpreter
def test_a_server_without_operators_is_built_without_the_wallets_http_client() -> None:
    """aiohttp (the seamless wallet's client, ~0.13 s to import) is loaded when a server has
    operators, as it is built, and not otherwise."""
    from tests.support.operators_file import operator_entry, operators_file

    entry = operator_entry("casino-a", secret="s3cret-for-casino-a-0123456789", currencies=["EUR"],
                           wallet_url="http://127.0.0.1:9/wallet")
    done = subprocess.run([sys.executable, "-c", BUILT_SERVERS, operators_file(entry)], capture_output=True,
                          text=True, check=True)
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [False, True]
