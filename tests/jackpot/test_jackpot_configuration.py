"""The deployment's jackpot file and settings: rates refused with the entry named, the currency
conversion rounded down in every currency's own decimals, `serve --jackpot` / `--no-jackpot` and
``$DEALERPOKER_JACKPOT``, and a pool that keeps its currency."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.jackpot.support import FOUR_WINS, jackpot_file
from tests.server.conftest import make_client

from dealerpoker.errors import InvalidRulesError
from dealerpoker.games.jackpot import load_jackpot, to_currency
from dealerpoker.server.jackpot import JackpotNotOfferedError
from dealerpoker.server.settings import Settings


@pytest.mark.parametrize(("rates", "message"), [
    ({"USD": "0"}, "rates: USD: expected a positive rate"),
    ({"USD": "about one"}, "rates: USD: expected a positive rate"),
    ({"USD": True}, "rates: USD: expected a positive rate"),
    ({"EUR": "1"}, "rates: EUR is the pool's currency"),
    ({"U$D": "1.1"}, "rates: 'U$D' is not a currency code"),
    ("1.08", "rates: expected a table of currency"),
])
def test_a_bad_rate_is_refused_naming_it(rates: object, message: str) -> None:
    with pytest.raises(InvalidRulesError, match=message.replace("$", r"\$")):
        load_jackpot(overrides={"rates": rates})


def test_amounts_convert_at_the_rate_rounded_down_in_each_currencys_decimals() -> None:
    rules = load_jackpot(overrides={"rates": {"USD": "1.085", "KWD": "0.333", "JPY": "161.5"}})
    assert to_currency(rules, 100, "USD", from_exponent=2, to_exponent=2) == 108  # 108.5 cents down
    assert to_currency(rules, 100, "KWD", from_exponent=2, to_exponent=3) == 333  # 0.333 KWD in fils
    assert to_currency(rules, 101, "JPY", from_exponent=2, to_exponent=0) == 163  # 163.115 yen down
    assert to_currency(rules, 5_000_000, "EUR", from_exponent=2, to_exponent=2) == 5_000_000
    assert rules.currencies == ("EUR", "JPY", "KWD", "USD")


def test_the_jackpot_settings() -> None:
    assert Settings().jackpot and Settings().jackpot_file is None  # the shipped jackpot by default
    assert not Settings.from_env({"DEALERPOKER_JACKPOT": "off"}).jackpot
    chosen = Settings.from_env({"DEALERPOKER_JACKPOT": "/etc/jackpot.toml"})
    assert chosen.jackpot and chosen.jackpot_file == "/etc/jackpot.toml"


def test_a_bad_jackpot_file_stops_the_server_naming_the_entry(tmp_path: Path) -> None:
    path = jackpot_file(tmp_path, FOUR_WINS.replace('contribution = "1/5"', 'contribution = "2"'))
    with pytest.raises(InvalidRulesError, match="contribution: the share of a stake must be"):
        make_client("sqlite://", jackpot_file=path)


def test_a_pool_keeps_its_currency(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path}/pool.db"
    with make_client(database, jackpot_file=jackpot_file(tmp_path)) as client:
        assert client.get("/api/jackpot").json()["currency"] == "EUR"
    in_dollars = FOUR_WINS.replace('currency = "EUR"', 'currency = "USD"') \
        .replace('USD = "1.08"', 'EUR = "0.92"')
    with pytest.raises(JackpotNotOfferedError, match="the pool in the database is in EUR"), \
            make_client(database, jackpot_file=jackpot_file(tmp_path, in_dollars)):
        pass
