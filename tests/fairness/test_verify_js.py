"""The browser's check (web/js/fairness.js, WebCrypto) deals the same decks as Python.

Run twice: in Node (its WebCrypto) and in Debian's Chromium driven by Playwright, the files
served to the page by Playwright's router (no server, no network). Each skips, saying why,
where Node or Chromium is missing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fairness_records import play_record

import dealerpoker
from dealerpoker.fairness import deck_order

JS = Path(dealerpoker.__file__).parent / "web" / "js"
VECTORS = json.loads((Path(__file__).parent.parent / "golden" / "fairness_vectors.json").read_text())[
    "vectors"
]
CHROMIUM = Path("/usr/bin/chromium")
ORIGIN = "http://127.0.0.1:9"  # never contacted: Playwright's router answers (127.0.0.1 is a secure context)

KAT_SCRIPT = """
import { commitmentOf, deckOrder, cardName } from "%s";
const vectors = JSON.parse(%s);
const out = [];
for (const v of vectors) {
  const deck = await deckOrder(v.server_seed, v.client_seed, v.nonce);
  out.push({ commitment: await commitmentOf(v.server_seed), deck, cards: deck.map(cardName).join(" ") });
}
%s
"""


def expected() -> list[dict[str, Any]]:
    return [{"commitment": v["commitment"], "deck": v["deck"], "cards": v["cards"]} for v in VECTORS]


def test_node_deals_the_known_answer_vectors() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the JavaScript check runs in Chromium below")
    script = KAT_SCRIPT % (
        (JS / "fairness.js").as_uri(),
        json.dumps(json.dumps(VECTORS)),
        "console.log(JSON.stringify(out));",
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected()


def test_node_agrees_with_python_on_many_seeds() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    cases = [{"server_seed": f"{k:064x}", "client_seed": f"c{k}~ :", "nonce": k * 7919} for k in range(200)]
    script = KAT_SCRIPT % (
        (JS / "fairness.js").as_uri(),
        json.dumps(json.dumps(cases)),
        "console.log(JSON.stringify(out.map((o) => o.deck)));",
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        list(deck_order(c["server_seed"], c["client_seed"], c["nonce"])) for c in cases
    ]


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing (make test installs Debian's chromium when root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))

        def serve(route: Any) -> None:
            path = route.request.url.removeprefix(ORIGIN)
            if path == "/":
                route.fulfill(
                    status=200, content_type="text/html", body="<!doctype html><main id=app></main>"
                )
            elif path.startswith("/js/") and (JS / path[4:]).is_file():
                route.fulfill(status=200, content_type="text/javascript", body=(JS / path[4:]).read_text())
            else:
                route.fulfill(status=404, body="not found")

        page.route(f"{ORIGIN}/**", serve)
        page.goto(f"{ORIGIN}/")
        yield page
        browser.close()
        assert not errors, errors


def test_chromium_deals_the_known_answer_vectors(page: Any) -> None:
    script = KAT_SCRIPT % ("/js/fairness.js", json.dumps(json.dumps(VECTORS)), "window.__kat = out;")
    page.add_script_tag(content=script, type="module")
    page.wait_for_function("window.__kat !== undefined")
    assert page.evaluate("window.__kat") == expected()


def run_check(page: Any, round_view: dict[str, Any]) -> dict[str, Any]:
    """Render the replay view's fairness block for ``round_view``, click VERIFY, read the result."""
    page.evaluate("document.querySelector('#app').replaceChildren()")
    page.add_script_tag(
        type="module",
        content=f"""
        import {{ fairnessCheck }} from "/js/verify.js";
        document.querySelector("#app").append(fairnessCheck({json.dumps(round_view)}));
    """,
    )
    button = page.locator(f"[data-verify='{round_view['id']}']")
    button.click()
    result = page.locator(f"[data-verify-result='{round_view['id']}']")
    page.wait_for_function(
        f"document.querySelector(\"[data-verify-result='{round_view['id']}']\").dataset.ok"
    )
    return {"ok": result.get_attribute("data-ok") == "true", "text": result.inner_text()}


def view_of(record: dict[str, Any]) -> dict[str, Any]:
    """The round view's fields the replay has (as GET /api/rounds/{id} gives them)."""
    return {
        "id": record["round_id"],
        "fairness": record["fairness"],
        "player_cards": record["dealt"]["player"],
        "dealer_cards": record["dealt"]["dealer"],
        "board": record["dealt"]["board"],
    }


def test_the_verify_button_confirms_a_true_round_and_names_a_false_card(page: Any) -> None:
    record = play_record("casino-holdem", {"ante": 100}, ("raise",), nonce=21, round_id="r-js")
    good = run_check(page, view_of(record))
    assert good["ok"], good["text"]
    assert "VERIFIED" in good["text"] and "commitment" in good["text"]
    forged = view_of(record) | {"id": "r-forged"}
    forged["board"] = [
        *forged["board"][:2],
        "2c" if forged["board"][2] != "2c" else "3c",
        *forged["board"][3:],
    ]
    bad = run_check(page, forged)
    assert not bad["ok"]
    assert "board cards: card 3 shown as" in bad["text"]
    wrong_seed = view_of(record) | {"id": "r-seed"}
    wrong_seed["fairness"] = record["fairness"] | {"server_seed": "00" * 32}
    bad = run_check(page, wrong_seed)
    assert not bad["ok"] and "commitment" in bad["text"]


def test_the_verify_button_waits_for_the_revealed_seed(page: Any) -> None:
    record = play_record(nonce=22, round_id="r-open")
    view = view_of(record)
    view["fairness"] = record["fairness"] | {"server_seed": None}
    page.evaluate("document.querySelector('#app').replaceChildren()")
    page.add_script_tag(
        type="module",
        content=f"""
        import {{ fairnessCheck }} from "/js/verify.js";
        document.querySelector("#app").append(fairnessCheck({json.dumps(view)}));
    """,
    )
    assert page.locator("[data-verify='r-open']").is_disabled()
    assert "revealed once the round is settled" in page.locator("#app").inner_text()
