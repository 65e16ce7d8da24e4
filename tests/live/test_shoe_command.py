"""``dealerpoker shoe`` as a studio's operator runs it (issue 33): the dealer key from a file, not
the command line (where ps shows it); ``--rounds`` stops even when nobody bets."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server
from tests.live.studio_support import KEY, STUDIO_TABLES, ws_base
from tests.support.servers import DEALERPOKER
from tests.support.waiting import until

from dealerpoker.server.live.dealer import DEALER


def test_the_shoe_reads_its_key_from_a_file_and_stops_at_an_empty_table(tmp_path: Path) -> None:
    key_file = tmp_path / "dealer.key"
    key_file.write_text(f"{KEY}\n", "utf-8")
    environment = {name: value for name, value in os.environ.items() if name != "DEALERPOKER_DEALER_KEY"}
    command = [DEALERPOKER, "shoe", "--table", "studio-texas", "--delay", "0", "--rounds", "1"]
    missing = subprocess.run([*command, "--url", "ws://127.0.0.1:1"], env=environment,
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2
    assert "DEALERPOKER_DEALER_KEY" in missing.stderr and "--key-file" in missing.stderr
    clock = ManualClock()
    database = f"sqlite:///{tmp_path}/studio.db"
    with live_server(database, clock=clock, extra_tables=STUDIO_TABLES) as (base, app):
        watcher = LivePlayer(base, "studio-texas")
        shoe = subprocess.Popen([*command, "--url", ws_base(base), "--key-file", str(key_file)],
                                env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            window = watcher.until(is_table("betting_open"))

            def at_the_table() -> bool:  # the shoe, before its window closes empty
                assert shoe.poll() is None, shoe.communicate(timeout=5)
                return bool(app.state.live.hub.connected("studio-texas", DEALER))

            until(at_the_table, "the shoe joins the table", timeout=120, interval=0.05)
            clock.reach(window)
            watcher.until(is_table("no_bets"))
            out, err = shoe.communicate(timeout=60)
        finally:
            watcher.close()
            if shoe.poll() is None:
                shoe.kill()
    assert shoe.returncode == 0, err
    assert "no bets, nothing to deal" in out and "shoe: 0 round(s) dealt, 1 without bets" in out
    assert "warning" not in err
