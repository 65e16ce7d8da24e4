"""A finger held on an element (Playwright's touchscreen only taps): touch events through the
DevTools protocol, held until the page has done what the hold does."""

from __future__ import annotations

from typing import Any


def hold(page: Any, target: Any, done: str) -> None:
    """Touch ``target``'s middle and keep the finger down until ``done`` (a page expression) is
    true, then lift it."""
    box = target.bounding_box()
    assert box, "the held element is not on the page"
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    session = page.context.new_cdp_session(page)
    try:
        session.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
        page.wait_for_function(done)
    finally:
        session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        session.detach()
