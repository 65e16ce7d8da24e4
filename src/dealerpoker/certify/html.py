"""Printable, self-contained HTML pages for the pack: inline CSS, no script, no external asset."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from html import escape

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111;
       margin: 2rem auto; max-width: 62rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.25rem; margin-top: 2rem; }
h3 { font-size: 1.05rem; margin-top: 1.4rem; }
p.meta { color: #444; margin-top: 0; }
table { border-collapse: collapse; margin: .6rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #bbb; padding: .2rem .5rem; text-align: left; vertical-align: top; }
th { background: #eef0f3; } td.num { text-align: right; white-space: nowrap; }
td.frac { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; }
.pass { color: #0a6b2b; font-weight: 600; } .fail { color: #b00020; font-weight: 600; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; word-break: break-all; }
footer { margin-top: 2.5rem; color: #555; font-size: 12px; border-top: 1px solid #ccc; padding-top: .5rem; }
@media print { body { margin: 0; max-width: none; } h2 { page-break-after: avoid; }
               table { page-break-inside: auto; } tr { page-break-inside: avoid; } a { color: #111; } }
"""


def page(title: str, body: str, *, lang: str = "en", footer: str = "") -> str:
    """A whole HTML document: ``body`` is already-escaped HTML."""
    return (f'<!DOCTYPE html>\n<html lang="{escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f"{body}\n<footer>{footer}</footer>\n</body>\n</html>\n")


Cell = str | int | float | Fraction | None


def cell(value: Cell) -> str:
    if value is None:
        return "<td>—</td>"
    if isinstance(value, Fraction):
        return f'<td class="frac">{escape(str(value))}</td>'
    if isinstance(value, bool):
        return f"<td>{'yes' if value else 'no'}</td>"
    if isinstance(value, int):
        return f'<td class="num">{value:,}</td>'
    if isinstance(value, float):
        return f'<td class="num">{value:.10g}</td>'
    return f"<td>{value}</td>"


def table(headers: Sequence[str], rows: Iterable[Sequence[Cell]], *, raw: bool = False) -> str:
    """An HTML table; string cells are escaped unless ``raw`` (already HTML)."""
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headers)
    body = []
    for row in rows:
        cells = [cell(v if raw or not isinstance(v, str) else escape(v)) for v in row]
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table>"


def verdict(passed: bool) -> str:
    return '<span class="pass">pass</span>' if passed else '<span class="fail">FAIL</span>'


def percent(value: float, digits: int = 4) -> str:
    return f"{value * 100:.{digits}f}%"
