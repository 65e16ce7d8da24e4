"""The strategy hint (``js/hint.js``) as the browser tests read it, at a solo table (tests/web) and
at a live one (tests/live): the best decision with its EV, and the "why" tooltip's rows."""

from __future__ import annotations

from typing import Any


def signed_ev(value: float) -> str:
    """An EV as the English page writes it: "+0.973", "-1.000", "0.000"."""
    return f"{value:+.3f}" if round(value, 3) else "0.000"


def open_why(page: Any, advice: dict[str, Any]) -> dict[str, str]:
    """Checks the hint names ``advice``'s best decision with its EV, hovers "why" and returns the
    tooltip's rows (each decision's text), checked to name each decision and its EV."""
    best = page.locator("#strategy-hint .hint__best")
    best.filter(has_text=signed_ev(advice["actions"][advice["best"]]["ev"])).wait_for()
    assert best.get_attribute("data-best") == advice["best"]
    assert advice["best"].upper() in best.inner_text()
    tip = page.locator("#strategy-hint-why")
    assert tip.is_hidden()
    page.locator("#strategy-hint .hint__why").hover()
    tip.wait_for(state="visible")
    rows = tip_rows(page)
    for action, text in rows.items():
        assert action.upper() in text and signed_ev(advice["actions"][action]["ev"]) in text, text
    return rows


def tip_rows(page: Any) -> dict[str, str]:
    """The "why" tooltip's rows: each decision's text."""
    rows = page.locator("#strategy-hint-why .hint__row").evaluate_all(
        "rs => rs.map(r => [r.dataset.action, r.textContent])")
    return dict(rows)
