"""The felt's zoom (web/js/fit.js) is tried anew only when the room it has or its own size changes:
a redraw that changes neither (a card dealt, a chip placed) leaves the zoom as it is, rather than
laying the felt out at a dozen zooms and repainting all of it on every redraw. A new room (a phone,
a window resized) still gets a new zoom that fits."""

from __future__ import annotations

from typing import Any

import pytest

from .test_web_table import Table
from .web_support import LiveServer

pytestmark = pytest.mark.browser

# Each time the felt's zoom is set (its style attribute written), counted from now on.
COUNT_ZOOMS = """() => {
  window.zoomsSet = 0;
  new MutationObserver((records) => { window.zoomsSet += records.length; })
    .observe(document.querySelector('.felt'), { attributes: true, attributeFilter: ['style'] });
}"""


def test_dealing_redraws_without_trying_the_zoom_again(desktop: Any, live_server: LiveServer) -> None:
    """Placing the ante and dealing to the first decision redraw the table several times; the felt
    keeps its size (its card places are laid out from the start), so its zoom is never set."""
    table = Table(desktop, live_server).open("casino-holdem")
    zoom = desktop.evaluate("document.querySelector('.felt').dataset.zoom")
    desktop.evaluate(COUNT_ZOOMS)
    table.place("ante")
    table.deal()
    desktop.locator('#controls [data-action="raise"]').wait_for()
    assert desktop.evaluate("window.zoomsSet") == 0
    assert desktop.evaluate("document.querySelector('.felt').dataset.zoom") == zoom


def test_a_new_room_gets_a_new_zoom_that_fits(desktop: Any, live_server: LiveServer) -> None:
    Table(desktop, live_server).open("casino-holdem")
    felt = "document.querySelector('.felt')"
    wide = float(desktop.evaluate(f"{felt}.dataset.zoom"))
    desktop.set_viewport_size({"width": 375, "height": 667})
    desktop.wait_for_function(f"Number({felt}.dataset.zoom) !== {wide}")
    box = desktop.evaluate("(() => { const r = document.querySelector('.felt-box').getBoundingClientRect();"
                           f" const f = {felt}.getBoundingClientRect(); return [f.bottom, r.bottom]; }})()")
    assert float(desktop.evaluate(f"{felt}.dataset.zoom")) < wide
    assert box[0] <= box[1] + 0.5, box  # the felt fits its room
