"""What the web table needs beyond the first API slice: field paytables as display rows (so the
page holds no rules) and the step-by-step replay of a round for the history panel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import Player, TestClient, make_client


def games_of(client: TestClient) -> dict[str, Any]:
    return {game["id"]: game for game in client.get("/api/games").json()["games"]}


def shown(rows: Any) -> Any:
    """A paytable row (or rows) as the English page shows it: the hand and what it pays."""
    return [shown(row) for row in rows] if isinstance(rows, list) else {k: rows[k] for k in ("hand", "pays")}


def test_field_paytables_are_display_rows_for_every_opening_field(client: TestClient) -> None:
    games = games_of(client)
    texas, casino = games["texas-bonus"]["field_paytables"], games["casino-holdem"]["field_paytables"]
    assert texas["bonus"]["rows"][0]["key"] == "paytable.bonus.AA"
    assert casino["aa"]["rows"][-1] == {"hand": "Aces or Better", "key": "paytable.pair_or_better",
                                        "params": {"rank_plural": "A"}, "pays": 7}
    assert set(texas) == {"ante", "bonus"} and set(casino) == {"ante", "aa"}
    assert shown(texas["bonus"]["rows"][0]) == {"hand": "Ace - Ace", "pays": 30}
    assert shown(texas["bonus"]["rows"][-1]) == {"hand": "Any Pair 2 - 10", "pays": 3}
    assert shown(texas["ante"]["rows"]) == [{"hand": "Flush or better", "pays": 1},
                                     {"hand": "Below a Flush", "pays": "push"}]
    assert [row["hand"] for row in casino["ante"]["rows"]][:2] == ["Royal Flush", "Straight Flush"]
    assert shown(casino["ante"]["rows"][-1]) == {"hand": "High Card", "pays": 1}
    assert shown(casino["aa"]["rows"][0]) == {"hand": "Royal Flush", "pays": 100}
    assert shown(casino["aa"]["rows"][-1]) == {"hand": "Aces or Better", "pays": 7}
    assert all(entry["note"] for entry in (*texas.values(), *casino.values()))


def test_field_paytables_follow_the_rules_file(tmp_path: Path) -> None:
    casino_rules = tmp_path / "casino.toml"
    casino_rules.write_text('aa_min_pair = "K"\n[aa_paytable]\nstraight = 8\n', "utf-8")
    texas_rules = tmp_path / "texas.toml"
    texas_rules.write_text('ante_qualifier = "straight"\n', "utf-8")
    with make_client("sqlite://", rules_files={"casino-holdem": str(casino_rules),
                                               "texas-bonus": str(texas_rules)}) as client:
        games = games_of(client)
    aa = shown(games["casino-holdem"]["field_paytables"]["aa"]["rows"])
    assert {"hand": "Straight", "pays": 8} in aa and aa[-1] == {"hand": "Kings or Better", "pays": 7}
    texas_ante = games["texas-bonus"]["field_paytables"]["ante"]["rows"]
    assert shown(texas_ante[0]) == {"hand": "Straight or better", "pays": 1}


def test_replay_shows_each_step_with_only_the_cards_seen_then(player: Player) -> None:
    view = player.open("texas-bonus", ante=100)
    view = player.act(view["id"], "bet")
    open_replay = player.get(f"/api/rounds/{view['id']}/replay").json()
    assert open_replay["status"] == "open" and len(open_replay["frames"]) == 2
    first, second = open_replay["frames"]
    assert first["step"]["action"] == "deal" and first["board"] == [] and first["dealer_cards"] == []
    assert second["step"]["action"] == "bet" and second["board"] == view["board"]
    assert len(second["board"]) == 3
    view = player.act(view["id"], "check")
    view = player.act(view["id"], "bet")
    frames = player.get(f"/api/rounds/{view['id']}/replay").json()["frames"]
    assert [frame["step"]["action"] for frame in frames] == ["deal", "bet", "check", "bet"]
    assert [len(frame["board"]) for frame in frames] == [0, 3, 4, 5]
    assert [len(frame["dealer_cards"]) for frame in frames] == [0, 0, 0, 2]
    assert frames[-1]["settlement"] == view["settlement"]
    assert frames[-1]["player_cards"] == view["player_cards"]


def test_replay_is_the_owners_only(client: TestClient, player: Player) -> None:
    view = player.open("casino-holdem", ante=100)
    other = Player(client)
    assert other.get(f"/api/rounds/{view['id']}/replay").status_code == 403
    assert player.get("/api/rounds/r_nosuchround/replay").status_code == 404
    assert client.get(f"/api/rounds/{view['id']}/replay").status_code == 401
