"""Behind nginx (docs/operations.md, "Behind nginx"): players keep playing, solo rounds over HTTP
and a live table over WebSockets, through the proxy while every ``serve`` process behind it is
restarted in turn (SIGTERM: the process drains, its live table finishes the round and goes to the
other process, its players reconnect through nginx; then a new process on its port). Afterwards
every round they opened is settled, every live bet and decision accepted is in a settled round
as the player's own, no request was answered with an error that was not retried to the same
result, and the ledger audit passes.

Needs Debian's nginx (``.ci/run`` installs it when missing), PostgreSQL and Redis; skipped with
the reason otherwise."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.live.conftest import FAST_TABLES
from tests.support.databases import NO_POSTGRES, NO_REDIS, POSTGRES_URL, REDIS_URL, audit, fresh_database
from tests.support.playing import LiveSeat, Players
from tests.support.servers import DRAIN_SECONDS, ServeProcess, free_port
from tests.support.waiting import until

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
PROCESSES = 2
LIVE_PLAYERS = 2

pytestmark = [
    pytest.mark.slow, pytest.mark.postgres, pytest.mark.redis,  # processes, nginx, both databases
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (Debian: apt-get install nginx)"),
    pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES),
    pytest.mark.skipif(not REDIS_URL, reason=NO_REDIS),
]


def nginx_config(directory: Path, port: int, upstreams: list[int]) -> Path:
    """The deployment's configuration of docs/operations.md, on loopback ports, in ``directory``."""
    servers = "\n".join(f"        server 127.0.0.1:{upstream} max_fails=1 fail_timeout=2s;"
                        for upstream in upstreams)
    user = "user root;" if os.geteuid() == 0 else ""
    config = directory / "nginx.conf"
    config.write_text(f"""{user}
worker_processes 1;
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    upstream dealerpoker {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://dealerpoker;
            proxy_http_version 1.1;
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection $connection_upgrade;
            proxy_read_timeout 75s;
            proxy_send_timeout 75s;
            proxy_next_upstream error timeout;
        }}
    }}
}}
""")
    return config


def test_a_rolling_restart_behind_nginx_loses_no_round(tmp_path: Path) -> None:
    assert NGINX is not None and REDIS_URL is not None
    with fresh_database("nginx") as database:
        ports = [free_port() for _ in range(PROCESSES)]
        tables = tmp_path / "tables.toml"
        tables.write_text(FAST_TABLES.format(betting=3, decision=20, pause=1))
        options = ["--redis", REDIS_URL, "--trusted-proxy", "127.0.0.1", "--no-rtp", "--tables", str(tables)]
        environment = {**os.environ, "DEALERPOKER_REDIS_PREFIX": f"dp_nginx_{secrets.token_hex(4)}:",
                       DRAIN_SECONDS: "90"}  # each process stopped drains

        def start(number: int) -> ServeProcess:
            return ServeProcess(database, log=tmp_path / f"serve-{number}.log", extra=options,
                                port=ports[number], env=environment)

        processes = [start(number) for number in range(PROCESSES)]  # one after the other: migrations
        port = free_port()
        nginx = subprocess.Popen([NGINX, "-c", str(nginx_config(tmp_path, port, ports)), "-p", str(tmp_path)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        players = Players(f"http://127.0.0.1:{port}")
        seats = [LiveSeat(f"http://127.0.0.1:{port}") for _ in range(LIVE_PLAYERS)]
        try:

            def answers() -> bool:
                assert nginx.poll() is None, (tmp_path / "nginx-error.log").read_text()
                return _answers(f"http://127.0.0.1:{port}/healthz")

            until(answers, "nginx answers", timeout=30, interval=0.1)
            players.start()
            for seat in seats:
                seat.start()

            def progress() -> tuple[int, int]:
                return players.settled, min(len(seat.seated) for seat in seats)

            _wait_for(lambda: progress() >= (5, 2), "rounds before the restart")
            for number in range(PROCESSES):  # the rolling restart: each process in turn
                solo, live = progress()
                processes[number].stop()  # SIGTERM: it drains (its live table hands over), then stops
                _wait_for(lambda solo=solo, live=live: progress() >= (solo + 3, live + 1),
                          f"rounds while process {number} is down")
                processes[number] = start(number)
                solo, live = progress()
                _wait_for(lambda solo=solo, live=live: progress() >= (solo + 3, live + 1),
                          f"rounds after process {number} restarted")
            for runner in (players, *seats):
                runner.stop.set()
            for runner in (players, *seats):
                runner.join(60)
                assert not runner.is_alive()
            assert players.problems == []
            assert [seat.problems for seat in seats] == [[]] * LIVE_PLAYERS
            assert sum(seat.reconnects for seat in seats) >= 1  # someone's process went away under them
            # Every live round a player was seated in is settled, with each decision accepted as the
            # player's own (none lost to a restart, none made by a timer instead).
            for seat in seats:
                history = httpx.get(f"http://127.0.0.1:{port}/api/live-rounds", params={"limit": 100},
                                    headers={"Authorization": f"Bearer {seat.token}"}, timeout=30).json()
                settled = {item["round_id"]: item for item in history["rounds"]}
                current = max(seat.seated, key=lambda r: int(r.rpartition("/")[2]))
                assert seat.seated - {current} <= set(settled), "a round with a seat is not settled"
                checked = [decision for decision in seat.decided if decision[0] in settled]
                assert len(checked) >= 3, seat.decided
                for round_id, point, action in checked:
                    if round_id in settled:
                        assert {"point": point, "action": action, "source": "player"}.items() <= next(
                            a for a in settled[round_id]["actions"] if a["point"] == point).items()
            # Every round the players opened is settled (none lost between the processes).
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
                statuses = {http.get(f"/api/rounds/{round_id}",
                                     headers={"Authorization": f"Bearer {token}"}).json().get("status")
                            for round_id, token in players.rounds}
            assert statuses == {"settled"}
        finally:
            players.stop.set()
            for seat in seats:
                seat.stop.set()
            nginx.terminate()
            nginx.wait(30)
            for process in processes:
                process.stop()
        found = audit(database)
        assert found.ok, found.findings()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _wait_for(condition: Any, what: str, seconds: float = 90) -> None:
    until(condition, f"progress: {what}", timeout=seconds, interval=0.05)
