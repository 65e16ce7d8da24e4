"""Rules sheets: the rules of one game and variant as the player reads them, in each language
the product has (the web page's own catalogues, ``web/i18n``), with the RTP per bet and in total,
the live timers and the rules version. Every text comes from the catalogue; the sheet's JSON holds
the rendered sections, so the HTML is made from it alone."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from dealerpoker.certify.html import page
from dealerpoker.messages import LANGUAGES, catalogue, render

CATEGORIES = ("royal-flush", "straight-flush", "four-of-a-kind", "full-house", "flush", "straight",
              "three-of-a-kind", "two-pair", "one-pair", "high-card")
SIDE_FIELD = {"texas-bonus": "bonus", "casino-holdem": "aa"}
FOLLOW_UPS = {"texas-bonus": ("flop", "turn", "river"), "casino-holdem": ("raise",)}


GROUPING = {"de": ".", "es": ".", "sv": "\u00a0", "fr": "\u202f", "da": "."}
"""Each language's thousands separator where it writes a decimal comma (as Intl.NumberFormat does)."""


def _percent(value: float, language: str) -> str:
    text = f"{value * 100:.2f} %" if language != "en" else f"{value * 100:.2f}%"
    return text.replace(".", ",") if language in GROUPING else text


def _money(minor: int, language: str) -> str:
    text = f"{minor / 100:,.2f}"
    if language in GROUPING:
        text = text.replace(",", " ").replace(".", ",").replace(" ", GROUPING[language])
    return text


def rules_sheet_document(rules_document: Mapping[str, Any], par: Mapping[str, Any],
                         language: str) -> dict[str, Any]:
    """The sheet's content in ``language``: each section a title and rows of text."""
    t = catalogue(language)
    game = rules_document["game"]
    side = SIDE_FIELD[game]

    def say(key: str, **params: Any) -> str:
        return render(key, params, language)

    def pays(amount: int) -> str:
        return say("paytable.pays", pays=amount)

    title = t[f"game.{game}"]
    rtp = par["rtp"]
    limits = rules_document["limits"]
    def limit(field: str, end: str) -> str:
        return _money(limits[field][end], language)

    rows = [[t["field.ante"], limit("ante", "min"), limit("ante", "max"),
             _percent(rtp["main_game_per_ante"]["decimal"], language)]]
    rows += [[t[f"field.{f}"], "—", "—", t["rules.rtp_in_ante"]] for f in FOLLOW_UPS[game]]
    rows.append([t[f"field.{side}"], limit(side, "min"), limit(side, "max"),
                 _percent(rtp[side]["decimal"], language)])
    rows.append([f"{t['field.ante']} + {t[f'field.{side}']}", "", "",
                 _percent(rtp["total_one_unit_side_bet"]["decimal"], language)])
    sections: list[dict[str, Any]] = [
        {"title": t["rules.limits_title"],
         "head": [t["rules.bet"], t["rules.min"], t["rules.max"], t["rules.rtp"]],
         "rows": rows}]
    min_pair = t[f"rank.{rules_document.get('aa_min_pair', 'A')}_other"]
    if game == "casino-holdem":
        qualifier = str(rules_document["dealer_qualifier"])[0]
        ante = rules_document["ante_paytable"]
        sections.append({"title": say("paytable.caption", field=t["field.ante"]),
                         "head": [t["paytable.hand"], t["paytable.pays_header"]],
                         "rows": [[t[f"category.{c}"], pays(ante[c])] for c in CATEGORIES if c in ante],
                         "note": say("paytable.note.casino_ante", rank_plural=t[f"rank.{qualifier}_other"])})
        aa = rules_document["aa_paytable"]
        aa_rows = [[t[f"category.{c}"] if c != "one-pair" else
                    say("paytable.pair_or_better", rank_plural=min_pair),
                    pays(aa[c])] for c in CATEGORIES if c in aa]
        sections.append({"title": say("paytable.caption", field=t["field.aa"]),
                         "head": [t["paytable.hand"], t["paytable.pays_header"]], "rows": aa_rows,
                         "note": t["paytable.note.casino_aa"]})
    else:
        category = t[f"category.{rules_document['ante_qualifier']}"]
        sections.append({"title": say("paytable.caption", field=t["field.ante"]),
                         "head": [t["paytable.hand"], t["paytable.pays_header"]],
                         "rows": [[say("paytable.or_better", category=category), pays(1)],
                                  [say("paytable.below", category=category), t["paytable.push"]]],
                         "note": say("paytable.note.texas_ante", category=category)})
        bonus_rows = []
        for line in rules_document["bonus_paytable"]:
            key = "paytable.bonus." + "+".join(line["hands"])
            bonus_rows.append([t.get(key, line["name"]), pays(line["pays"])])
        if rules_document.get("bonus_both_aces", {}).get("pays", 0):
            bonus_rows.append([t["paytable.both_aces"], pays(rules_document["bonus_both_aces"]["pays"])])
        sections.append({"title": say("paytable.caption", field=t["field.bonus"]),
                         "head": [t["paytable.hand"], t["paytable.pays_header"]], "rows": bonus_rows,
                         "note": t["paytable.note.texas_bonus"]})
    settings = []
    if "ante_qualifier" in rules_document:
        settings.append([t["rules.setting.ante_qualifier"],
                         say("paytable.or_better",
                             category=t[f"category.{rules_document['ante_qualifier']}"])])
    if "dealer_qualifier" in rules_document:
        rank = str(rules_document["dealer_qualifier"])[0]
        settings.append([t["rules.setting.dealer_qualifier"],
                         say("paytable.pair_or_better", rank_plural=t[f"rank.{rank}_other"])])
    if "aa_min_pair" in rules_document:
        settings.append([t["rules.setting.aa_min_pair"],
                         say("paytable.pair_or_better", rank_plural=min_pair)])
    if "aa_settles_on_fold" in rules_document:
        settings.append([t["rules.setting.aa_settles_on_fold"],
                         t["rules.yes" if rules_document["aa_settles_on_fold"] else "rules.no"]])
    for point, action in rules_document.get("timeout_actions", {}).items():
        settings.append([say("rules.setting.timeout_action", point=t.get(f"phase.{point}", point)),
                         t.get(f"action.{action}", action)])
    for name, seconds in rules_document.get("timers", {}).items():
        key = f"rules.setting.{name}"
        if key in t:
            settings.append([t[key], say("rules.seconds", count=seconds)])
    sections.append({"title": t["rules.settings"], "head": [], "rows": settings})
    sections.append({"title": t["ranking.title"], "head": [t["ranking.hand"], t["ranking.description"]],
                     "rows": [[t[f"category.{c}"], t[f"ranking.{c}"]] for c in CATEGORIES],
                     "note": t["ranking.note"]})
    return {"kind": "rules-sheet", "game": game, "language": language, "title": title,
            "rules_version": rules_document.get("rules_version"),
            "rules_fingerprint": par["rules_fingerprint"],
            "version_line": say("rules.version", game=title,
                                version=rules_document.get("rules_version", "?")),
            "rtp": {"main_game_per_ante": rtp["main_game_per_ante"], side: rtp[side],
                    "total_one_unit_side_bet": rtp["total_one_unit_side_bet"]},
            "sections": sections}


def rules_sheet_html(document: Mapping[str, Any]) -> str:
    parts = [f"<h1>{escape(document['title'])}</h1>", f'<p class="meta">{escape(document["version_line"])} '
             f'<code>{escape(document["rules_fingerprint"])}</code></p>']
    for section in document["sections"]:
        parts.append(f"<h2>{escape(section['title'])}</h2>")
        if section["head"]:
            head = "".join(f'<th scope="col">{escape(h)}</th>' for h in section["head"])
            body = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>"
                           for row in section["rows"])
            parts.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        else:
            parts.append("<dl>" + "".join(f"<dt>{escape(k)}</dt><dd>{escape(str(v))}</dd>"
                                          for k, v in section["rows"]) + "</dl>")
        if section.get("note"):
            parts.append(f"<p>{escape(section['note'])}</p>")
    return page(f"{document['title']} — {document['rules_version']}", "\n".join(parts),
                lang=document["language"],
                footer=escape(document["version_line"]))


__all__ = ["LANGUAGES", "rules_sheet_document", "rules_sheet_html"]
