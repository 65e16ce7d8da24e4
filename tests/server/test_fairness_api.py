"""Provably fair solo play over HTTP: commitment before the bet, client seed, nonce, revealed
seed, and audit records that `dealerpoker verify` accepts (and rejects once altered)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FakeClock, Player, TestClient, make_client, play_out
from dealerpoker.cli import main
from dealerpoker.fairness import commitment, deck_order
from dealerpoker.fairness.verify import verify_record


def put_seed(player: Player, seed: Any) -> Any:
    return player.client.request(
        "PUT", "/api/fairness/client-seed", json={"client_seed": seed}, headers=player.headers
    )


def failures(record: dict[str, Any]) -> list[str]:
    return [str(f) for f in verify_record(record) if not f.ok]


def test_the_next_rounds_commitment_is_shown_before_the_bet_and_rotates(client: TestClient) -> None:
    player = Player(client)
    before = player.get("/api/fairness").json()
    assert set(before) == {"algorithm", "next_commitment", "client_seed", "next_nonce"}
    assert before["algorithm"] == "hmac-sha256-fy-v1" and before["next_nonce"] == 0
    assert player.get("/api/fairness").json() == before  # stable until a round uses it
    view = player.open("texas-bonus", ante=100)
    assert view["fairness"]["commitment"] == before["next_commitment"]
    assert view["fairness"]["nonce"] == 0 and view["fairness"]["client_seed"] == before["client_seed"]
    assert view["fairness"]["server_seed"] is None  # hidden while the round is open
    after = player.get("/api/fairness").json()
    assert after["next_nonce"] == 1 and after["next_commitment"] != before["next_commitment"]
    final = play_out(player, view)[-1]
    seed = final["fairness"]["server_seed"]
    assert commitment(seed) == before["next_commitment"]
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == before["next_commitment"]
    # the revealed seed gives exactly the cards that were dealt
    deck = deck_order(seed, before["client_seed"], 0)
    dealt = " ".join(final["player_cards"] + final["dealer_cards"] + final["board"])
    from dealerpoker.cards.encoding import indices_to_cards

    expected = [str(c) for c in indices_to_cards(deck[: 4 + len(final["board"])])]
    assert dealt == " ".join(expected)


def test_the_player_chooses_the_client_seed(client: TestClient) -> None:
    player = Player(client)
    response = put_seed(player, "my lucky seed: 7")
    assert response.status_code == 200, response.text
    assert response.json()["client_seed"] == "my lucky seed: 7"
    view = player.open("casino-holdem", ante=100)
    assert view["fairness"]["client_seed"] == "my lucky seed: 7"
    final = play_out(player, view)[-1]
    deck = deck_order(final["fairness"]["server_seed"], "my lucky seed: 7", 0)
    from dealerpoker.cards.encoding import index_to_card

    assert final["player_cards"] == [str(index_to_card(i)) for i in deck[:2]]


@pytest.mark.parametrize("seed", ["", "x" * 129, "caf\u00e9", "tab\there", 12, None])
def test_bad_client_seeds_are_refused_and_change_nothing(client: TestClient, seed: Any) -> None:
    player = Player(client)
    before = player.get("/api/fairness").json()
    response = put_seed(player, seed)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] in ("invalid_seed", "invalid_request") and body["message"]
    assert player.get("/api/fairness").json() == before


def test_a_settled_rounds_record_verifies(client: TestClient) -> None:
    player = Player(client)
    put_seed(player, "auditor-friendly")
    rounds = (("texas-bonus", {"ante": 100, "bonus": 100}), ("casino-holdem", {"ante": 200, "aa": 100}))
    for game, bets in rounds:
        for _round in range(6):
            view = player.open(game, **bets)
            refused = player.get(f"/api/rounds/{view['id']}/record")
            assert refused.status_code == 409 and "not settled" in refused.json()["message"]
            final = play_out(player, view)[-1]
            response = player.get(f"/api/rounds/{final['id']}/record")
            assert response.status_code == 200, response.text
            record = response.json()
            assert failures(record) == []
            assert record["fairness"]["server_seed"] == final["fairness"]["server_seed"]
            assert record["dealt"]["player"] == final["player_cards"]
            assert record["settlement"] == final["settlement"]
            assert record["rules"]["game"] == game and record["mode"] == "solo"
            assert [a["action"] for a in record["actions"]] == [s["action"] for s in final["steps"][1:]]
            # changing one value fails, naming what does not match
            forged = copy.deepcopy(record)
            forged["settlement"]["lines"][0]["returned"] += 1
            assert any("record_digest" in f for f in failures(forged))


def test_records_are_private_and_exist_only_for_real_rounds(client: TestClient) -> None:
    owner, other = Player(client), Player(client)
    final = play_out(owner, owner.open("texas-bonus", ante=100))[-1]
    assert other.get(f"/api/rounds/{final['id']}/record").status_code == 403
    assert owner.get("/api/rounds/r_nope/record").status_code == 404
    assert client.get(f"/api/rounds/{final['id']}/record").status_code == 401


def test_a_round_finished_by_the_timer_verifies(database_url: str, clock: FakeClock) -> None:
    with make_client(database_url, clock, abandon_after_seconds=60) as client:
        player = Player(client)
        view = player.open("texas-bonus", ante=100)
        view = player.act(view["id"], "bet")  # then the player walks away
        clock.advance(120)
        services = client.app.state.services
        assert client.portal is not None
        # At least this one: PostgreSQL's database is shared by the session's tests, whose fake
        # clocks all start on the same day, so another test's open round may be as stale.
        assert client.portal.call(services.rounds.complete_abandoned) >= 1
        record = player.get(f"/api/rounds/{view['id']}/record").json()
        assert [a["source"] for a in record["actions"]] == ["player", "timer", "timer"]
        assert failures(record) == []


def test_export_verify_and_report_from_the_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'casino.db'}"
    with make_client(url, FakeClock()) as client:
        player = Player(client)
        for game in ("texas-bonus", "casino-holdem", "texas-bonus"):
            play_out(player, player.open(game, ante=100))
        player.open("casino-holdem", ante=100)  # open: not exported
    export = tmp_path / "export.jsonl"
    assert (
        main(
            [
                "export",
                "--since",
                "2026-01-01",
                "--format",
                "jsonl",
                "--database",
                url,
                "--output",
                str(export),
            ]
        )
        == 0
    )
    assert "exported 3 round record(s)" in capsys.readouterr().err
    records = [json.loads(line) for line in export.read_text().splitlines()]
    assert len(records) == 3 and all(failures(r) == [] for r in records)
    assert main(["verify", "--round-file", str(export)]) == 0
    assert "3 of 3 rounds verified" in capsys.readouterr().out
    assert main(["export", "--since", "2026-01-02", "--database", url]) == 0
    assert capsys.readouterr().out == ""
    assert main(["report", "--date", "2026-01-01", "--database", url, "--no-rtp"]) == 0
    out = capsys.readouterr().out
    assert "3 round(s)" in out and "texas-bonus: 2 round(s)" in out and "casino-holdem: 1 round(s)" in out
    assert main(["report", "--date", "2026-01-01", "--database", url, "--json", "--no-rtp"]) == 0
    report = json.loads(capsys.readouterr().out)
    staked = sum(r["settlement"]["total_stake"] for r in records)
    returned = sum(r["settlement"]["total_returned"] for r in records)
    assert sum(g["stake"] for g in report["games"]) == staked
    assert sum(g["returned"] for g in report["games"]) == returned
    assert sum(g["hold"] for g in report["games"]) == staked - returned
    assert main(["report", "--date", "yesterday", "--database", url, "--no-rtp"]) == 2
    assert "--date 'yesterday'" in capsys.readouterr().err


def test_the_report_takes_exact_rtps_for_the_rules_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The analysis is replaced by fixed fractions here (it takes half a minute per game)."""
    from fractions import Fraction

    from dealerpoker.analysis import rtp as analysis_rtp

    asked: list[str] = []

    def fake_rtps(rules: Any, cache: Any = None) -> dict[str, Fraction | None]:
        asked.append(rules.fingerprint())
        return {"ante": Fraction(9784, 10000), "aa": Fraction(9, 10), "raise": None}

    monkeypatch.setattr(analysis_rtp, "bet_rtps", fake_rtps)
    url = f"sqlite:///{tmp_path / 'casino.db'}"
    with make_client(url, FakeClock()) as client:
        player = Player(client)
        for _round in range(3):
            play_out(player, player.open("casino-holdem", ante=100, aa=100), lambda view: "raise")
    assert main(["report", "--date", "2026-01-01", "--database", url, "--json"]) == 0
    (game,) = json.loads(capsys.readouterr().out)["games"]
    fields = {f["field"]: f for f in game["fields"]}
    assert fields["ante"]["exact_rtp"] == 0.9784 and fields["aa"]["exact_rtp"] == 0.9
    assert fields["raise"]["exact_rtp"] is None
    assert len(set(asked)) == 1  # the rules document the rounds were played under
