"""The operator report's arithmetic: integer totals per game and field, RTP beside actual return."""

from __future__ import annotations

from fairness_records import play_record

from dealerpoker.fairness.report import render_report, report_json, summarize


def test_totals_per_game_and_field_are_the_settlements_sums() -> None:
    records = [
        play_record("texas-bonus", {"ante": 100, "bonus": 100}, ("bet", "check", "check"), nonce=n)
        for n in range(5)
    ]
    records += [play_record("casino-holdem", {"ante": 200}, ("raise",), nonce=n) for n in range(3)]
    games = {g.game: g for g in summarize(records)}
    assert set(games) == {"texas-bonus", "casino-holdem"}
    texas = games["texas-bonus"]
    assert texas.rounds == 5
    assert texas.stake == sum(r["settlement"]["total_stake"] for r in records[:5])
    assert texas.returned == sum(r["settlement"]["total_returned"] for r in records[:5])
    assert texas.hold == texas.stake - texas.returned
    bonus = next(f for f in texas.fields if f.field == "bonus")
    assert bonus.bets == 5 and bonus.stake == 500
    casino = games["casino-holdem"]
    assert [f.field for f in casino.fields] == ["ante", "raise"]
    assert casino.fields[1].stake == 3 * 400


def test_rtp_is_shown_beside_the_actual_return_or_na() -> None:
    record = {
        "game": "casino-holdem",
        "bets": {"ante": 1000, "aa": 100},
        "settlement": {
            "lines": [
                {"field": "ante", "stake": 1000, "returned": 1000},
                {"field": "aa", "stake": 100, "returned": 0},
            ]
        },
    }
    games = summarize([record])
    text = render_report("2026-11-29", games, {"casino-holdem": {"ante": 0.9784, "aa": None}})
    ante = next(line for line in text.splitlines() if line.strip().startswith("ante"))
    aa = next(line for line in text.splitlines() if line.strip().startswith("aa"))
    assert "100.00%" in ante and "97.84%" in ante and "+2.16 pp" in ante
    assert aa.split()[-2:] == ["n/a", "n/a"]
    document = report_json("2026-11-29", games, {"casino-holdem": {"ante": 0.9784}})
    (game,) = document["games"]
    assert game["stake"] == 1100 and game["returned"] == 1000 and game["hold"] == 100
    assert game["fields"][0]["exact_rtp"] == 0.9784 and game["fields"][1]["exact_rtp"] is None


def test_an_empty_day() -> None:
    assert "no settled rounds" in render_report("2026-11-29", [], {})
    assert report_json("2026-11-29", [], {}) == {"date": "2026-11-29", "rounds": 0, "games": []}


def test_the_antes_actual_return_is_its_whole_game_per_ante() -> None:
    """The ante's RTP covers the ante and its follow-up bets, per unit of ante (as analysis defines it)."""
    record = {
        "game": "casino-holdem",
        "bets": {"ante": 100, "aa": 100},
        "settlement": {
            "lines": [
                {"field": "ante", "stake": 100, "returned": 200},
                {"field": "raise", "stake": 200, "returned": 400},
                {"field": "aa", "stake": 100, "returned": 0},
            ]
        },
    }
    folded = {
        "game": "casino-holdem",
        "bets": {"ante": 100},
        "settlement": {"lines": [{"field": "ante", "stake": 100, "returned": 0}]},
    }
    (game,) = summarize([record, folded])
    assert game.follow_ups == ("raise",)
    assert game.ante_game_net == (100 + 200) - 100
    fields = {f.field: f for f in game.fields}
    assert game.actual_return(fields["ante"]) == 1 + 200 / 200
    assert game.actual_return(fields["aa"]) == 0.0
    assert game.actual_return(fields["raise"]) == 2.0
    (row,) = [g for g in report_json("d", [game], {"casino-holdem": {"ante": 0.98}})["games"]]
    assert [f["follow_up"] for f in row["fields"]] == [False, True, False]


def test_a_live_round_counts_once_with_every_seats_lines() -> None:
    solo = play_record("casino-holdem", {"ante": 200}, ("raise",), nonce=0)
    seats = [{"player_id": f"p{n}", "bets": r["bets"], "settlement": r["settlement"]}
             for n, r in enumerate(play_record("casino-holdem", {"ante": 100, "aa": 100}, ("raise",), nonce=n)
                                   for n in range(3))]
    live = {"game": "casino-holdem", "mode": "table", "seats": seats}
    (game,) = summarize([solo, live])
    assert (game.rounds, game.live_rounds, game.hands) == (2, 1, 4)
    seat_stakes = sum(s["settlement"]["total_stake"] for s in seats)
    assert game.stake == solo["settlement"]["total_stake"] + seat_stakes
    fields = {f.field: f for f in game.fields}
    assert fields["aa"].bets == 3 and fields["aa"].stake == 300
    assert fields["ante"].bets == 4 and fields["ante"].stake == 200 + 300
    assert "2 round(s) (1 live, 4 player hands)" in render_report("2026-11-29", [game], {})
