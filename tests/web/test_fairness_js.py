"""The browser's check of a deal (web/js/fairness.js and verify.js, WebCrypto) in Chromium:
the known-answer vectors give the same decks as Python, and the replay's VERIFY THIS DEAL
block confirms a true deal and names a false card or seed. The files are served to the page by
Playwright's router (no server, no network)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.fairness import ALGORITHM_VERSION, commitment, deck_order

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fairness_vectors.json"
VECTORS: list[dict[str, Any]] = json.loads(GOLDEN.read_text())["vectors"]
SEED = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


@pytest.fixture
def page(routed_page: Any) -> Any:
    return routed_page


def test_chromium_deals_the_known_answer_vectors(page: Any) -> None:
    page.add_script_tag(
        type="module",
        content=f"""
        import {{ commitmentOf, deckOrder, cardName }} from "/js/fairness.js";
        const out = [];
        for (const v of {json.dumps(VECTORS)}) {{
          const deck = await deckOrder(v.server_seed, v.client_seed, v.nonce);
          const cards = deck.map(cardName).join(" ");
          out.push({{ commitment: await commitmentOf(v.server_seed), deck, cards }});
        }}
        window.__kat = out;
    """,
    )
    page.wait_for_function("window.__kat !== undefined")
    expected = [{"commitment": v["commitment"], "deck": v["deck"], "cards": v["cards"]} for v in VECTORS]
    assert page.evaluate("window.__kat") == expected


def settled_view(round_id: str, nonce: int, board_cards: int = 5) -> dict[str, Any]:
    """The parts of a settled round's view the replay's check reads."""
    deck = deck_order(SEED, "player-chosen", nonce)
    names = [str(index_to_card(i)) for i in deck]
    return {
        "id": round_id,
        "player_cards": names[0:2],
        "dealer_cards": names[2:4],
        "board": names[4 : 4 + board_cards],
        "fairness": {
            "algorithm": ALGORITHM_VERSION,
            "commitment": commitment(SEED),
            "server_seed": SEED,
            "client_seed": "player-chosen",
            "nonce": nonce,
        },
    }


def render(page: Any, view: dict[str, Any]) -> None:
    page.evaluate("document.querySelector('#app').replaceChildren()")
    page.add_script_tag(
        type="module",
        content=f"""
        import {{ fairnessCheck }} from "/js/verify.js";
        import {{ useLanguage }} from "/js/i18n.js";
        await useLanguage("en");
        document.querySelector("#app").append(fairnessCheck({json.dumps(view)}));
    """,
    )
    page.locator(f"[data-verify='{view['id']}']").wait_for()


def run_check(page: Any, view: dict[str, Any]) -> tuple[bool, str]:
    render(page, view)
    page.locator(f"[data-verify='{view['id']}']").click()
    selector = f"[data-verify-result='{view['id']}']"
    page.wait_for_function(f'document.querySelector("{selector}").dataset.ok !== undefined')
    result = page.locator(selector)
    return result.get_attribute("data-ok") == "true", result.inner_text()


def test_the_verify_button_confirms_a_true_deal(page: Any) -> None:
    ok, text = run_check(page, settled_view("r-true", 21))
    assert ok, text
    assert "VERIFIED" in text and "commitment" in text and "board cards" in text


def test_the_verify_button_names_a_false_card_or_seed(page: Any) -> None:
    forged = settled_view("r-card", 22)
    forged["board"][2] = "2c" if forged["board"][2] != "2c" else "3c"
    ok, text = run_check(page, forged)
    assert not ok and "board cards: card 3 shown as" in text
    wrong_seed = settled_view("r-seed", 23)
    wrong_seed["fairness"]["server_seed"] = "00" * 32
    ok, text = run_check(page, wrong_seed)
    assert not ok and "SHA-256 of the revealed seed is" in text


def test_the_verify_button_waits_for_the_revealed_seed(page: Any) -> None:
    view = settled_view("r-open", 24, board_cards=0)
    view["fairness"]["server_seed"] = None
    render(page, view)
    assert page.locator("[data-verify='r-open']").is_disabled()
    assert "revealed once the round is settled" in page.locator("#app").inner_text()
