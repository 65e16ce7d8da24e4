"""The browser's check (web/js/fairness.js, WebCrypto) deals the same decks as Python, in Node.

The same file runs in Chromium in tests/web/test_fairness_js.py. Skips, saying why, without node.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import dealerpoker
from dealerpoker.fairness import deck_order

JS = Path(dealerpoker.__file__).parent / "web" / "js"
VECTORS = json.loads((Path(__file__).parent.parent / "golden" / "fairness_vectors.json").read_text())[
    "vectors"
]

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
