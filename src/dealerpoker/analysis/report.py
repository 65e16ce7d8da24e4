"""A self-contained HTML page for an analysis document (no external assets, inline CSS).

Texas Hold'em Bonus: a 13x13 starting-hand chart coloured by EV; Casino Hold'em: a raise-
frequency chart by flop situation; both: the return table and the side bets.
"""

from __future__ import annotations

from html import escape
from typing import Any

from dealerpoker.cards import RANK_CHARS

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}
th{background:#f4f4f4}td.l,th.l{text-align:left}
.grid td{width:3.2em;height:2.4em;text-align:center;font-size:12px}
.bar{display:inline-block;height:12px;background:#2a7}
"""


def _colour(ev: float) -> str:
    """Red for losing hands through white to green for the best, by EV per ante."""
    if ev < 0:
        level = max(0.0, 1 + ev)  # -1 -> 0
        return f"rgb(255,{int(120 + 135 * level)},{int(120 + 135 * level)})"
    level = min(1.0, ev / 3)
    return f"rgb({int(255 - 155 * level)},{int(255 - 40 * level)},{int(255 - 155 * level)})"


def _starting_hand_chart(two_card: dict[str, Any]) -> str:
    ranks = RANK_CHARS[::-1]
    rows = ["<table class='grid'>"]
    for i, hi in enumerate(ranks):
        cells = []
        for j, lo in enumerate(ranks):
            if i == j:
                name = hi + hi
            elif j > i:
                name = f"{hi}{lo}s"
            else:
                name = f"{lo}{hi}o"
            entry = two_card.get(name)
            if entry is None:
                cells.append("<td></td>")
                continue
            mark = "" if entry["action"] == "bet" else " (fold)"
            cells.append(f"<td style='background:{_colour(entry['ev'])}' title='{name}: EV "
                         f"{entry['ev']:+.4f}{mark}'>{name}<br>{entry['ev']:+.2f}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _strategy_chart(strategy: list[dict[str, Any]]) -> str:
    rows = ["<table><tr><th class='l'>flop situation</th><th>share</th><th>raise</th><th></th></tr>"]
    total = sum(s["situations"] for s in strategy) or 1
    for s in strategy:
        freq = s["raise_frequency"]
        rows.append(f"<tr><td class='l'>{escape(s['situation'])}</td><td>{s['situations'] / total:.4%}</td>"
                    f"<td>{freq:.2%}</td><td class='l'><span class='bar' style='width:{int(freq * 150)}px'>"
                    "</span></td></tr>")
    rows.append("</table>")
    return "\n".join(rows)


def html_report(document: dict[str, Any]) -> str:
    game = document["game"]
    title = f"dealerpoker analysis: {document['rules'].get('title', game)}"
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{escape(title)}</h1>"]
    summary = [("house edge (per ante)", f"{document['house_edge']:.6%}"),
               ("element of risk", f"{document['element_of_risk']:.6%}"),
               ("average total bet", f"{document['average_total_bet']:.6f}"),
               ("standard deviation", f"{document['std_dev']:.6f}"),
               ("play frequency", f"{document['play_frequency']:.6%}"),
               ("rules fingerprint", escape(document["rules"]["fingerprint"]))]
    parts.append("<table>" + "".join(f"<tr><th class='l'>{k}</th><td>{v}</td></tr>" for k, v in summary)
                 + "</table>")
    if game == "texas-bonus":
        parts.append("<h2>Starting hands: EV of the flop bet, then optimal play</h2>"
                     "<p>Suited above the diagonal, offsuit below; a fold is worth -1.</p>")
        parts.append(_starting_hand_chart(document["two_card_ev"]))
    else:
        parts.append("<h2>Raise strategy by flop situation</h2>")
        parts.append(_strategy_chart(document["rules"]["exact"]["strategy"]))
    parts.append("<h2>Return table</h2><table><tr><th class='l'>outcome</th><th>net</th>"
                 "<th>combinations</th><th>probability</th><th>return</th></tr>")
    for row in document["outcomes"]:
        parts.append(f"<tr><td class='l'>{escape(row['outcome'])}</td><td>{row['net']}</td>"
                     f"<td>{row['combinations']:,}</td><td>{row['probability']:.8f}</td>"
                     f"<td>{row['return']:+.8f}</td></tr>")
    parts.append("</table><h2>Side bets</h2>")
    for name, bet in document["side_bets"].items():
        parts.append(f"<h3>{escape(name)}</h3><table>")
        for key, value in bet.items():
            if isinstance(value, (str, int, float, bool)):
                parts.append(f"<tr><th class='l'>{escape(key)}</th><td>{escape(str(value))}</td></tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts)
