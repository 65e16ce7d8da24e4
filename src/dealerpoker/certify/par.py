"""PAR sheets: the exact analysis of one game under one rules document, as a lab reads it.

Every figure comes from the ``analyze --json`` document (:func:`dealerpoker.analysis.rtp.
analysis_document`): exact integer counts over every deal under the optimal strategy, carried as
fractions. The RTPs are those fractions' complements, so the sheet's decimals are the analysis'
own (``house_edge`` is copied, not recomputed). A simulation column beside them (the numba
simulator, :mod:`dealerpoker.analysis.simulate`) is a cross-check, with its 99% interval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from html import escape
from math import comb, sqrt
from typing import Any

from dealerpoker.analysis.deck import DeckSpec
from dealerpoker.certify.html import page, percent, table, verdict
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.rules import CasinoHoldemRules, Rules, TexasBonusRules

#: The two-sided normal quantile of a 99% interval, 2.5758293035489 (scipy.stats.norm.ppf(0.995)).
Z99 = 2.5758293035489004
#: The simulator's 95% half-width is 1.96 standard errors (see ``simulate``).
Z95_SIMULATOR = 1.96
SIDE_FIELD = {"texas-bonus": "bonus", "casino-holdem": "aa"}
MAIN_FIELDS = {"texas-bonus": ("ante", "flop", "turn", "river"), "casino-holdem": ("ante", "raise")}


def exact(value: Fraction) -> dict[str, Any]:
    """A figure as its exact fraction and its nearest double."""
    return {"exact": str(value), "decimal": float(value)}


def side_bet_lines(rules: Rules, analysis: Mapping[str, Any], deck: DeckSpec) -> list[dict[str, Any]]:
    """The side bet alone: each paying line with its combinations, probability and return."""
    if isinstance(rules, TexasBonusRules):
        bonus = analysis["side_bets"]["bonus"]
        total = bonus["total_combinations"]
        rows = [(line["line"], line["pays"], line["combinations"]) for line in bonus["lines"]
                if "combinations" in line]
    else:
        from dealerpoker.analysis.sidebets import five_card_counts

        assert isinstance(rules, CasinoHoldemRules)
        by_category, pairs_by_rank = five_card_counts(deck)
        total = comb(deck.size, 5)
        rows = []
        for category in sorted(rules.aa_paytable, key=int, reverse=True):
            count = by_category[category]
            name = category.title
            if category is HandCategory.ONE_PAIR:
                count = sum(c for r, c in pairs_by_rank.items() if r >= int(rules.aa_min_pair_rank))
                name = f"Pair of {rules.aa_min_pair_rank.plural} or better"
            rows.append((name, rules.aa_paytable[category], count))
    lines = [{"line": name, "pays": pays, "combinations": count,
              "probability": exact(Fraction(count, total)), "return": exact(Fraction(count * pays, total))}
             for name, pays, count in rows]
    losing = total - sum(count for _, _, count in rows)
    lines.append({"line": "loses", "pays": -1, "combinations": losing,
                  "probability": exact(Fraction(losing, total)), "return": exact(Fraction(-losing, total))})
    return lines


def _side_moments(lines: list[dict[str, Any]]) -> tuple[Fraction, Fraction, Fraction]:
    total = sum(line["combinations"] for line in lines)
    mean = Fraction(sum(line["combinations"] * line["pays"] for line in lines), total)
    second = Fraction(sum(line["combinations"] * line["pays"] ** 2 for line in lines), total)
    hits = Fraction(sum(line["combinations"] for line in lines if line["pays"] > 0), total)
    return mean, second - mean * mean, hits


def side_edge(rules: Rules, analysis: Mapping[str, Any]) -> Fraction:
    """The side bet's house edge under the rules in force (the AA bet: per its fold rule)."""
    if rules.game == "texas-bonus":
        return Fraction(analysis["side_bets"]["bonus"]["exact"])
    aa = analysis["side_bets"]["aa"]
    return Fraction(aa["exact_settled_on_fold"] if aa["settles_on_fold"] else aa["exact_lost_on_fold"])


def simulation_column(rules: Rules, tables: Mapping[str, Any], rounds: int, *, seed: int,
                      deck: DeckSpec, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Two seeded runs of the simulator under the optimal strategy: the main game alone (ante 1),
    then the main game with one unit on the side bet; each mean net per ante with its 99% interval."""
    from dealerpoker.analysis.simulate import simulate

    side = SIDE_FIELD[rules.game]

    def interval(mean: float, half95: float) -> dict[str, Any]:
        half = half95 / Z95_SIMULATOR * Z99
        return {"mean": mean, "ci99": [mean - half, mean + half]}

    main = simulate(rules, rounds, seed=seed, bets={"ante": 1}, tables=tables, deck=deck,
                    progress=None if progress is None else (lambda d, t: progress(d, 2 * t)))
    both = simulate(rules, rounds, seed=seed + 1, bets={"ante": 1, side: 1}, tables=tables, deck=deck,
                    progress=None if progress is None else (lambda d, t: progress(t + d, 2 * t)))
    side_estimate = next(e for e in both.per_bet if e.field == side)
    return {"rounds": rounds, "seeds": [seed, seed + 1], "strategy": "optimal", "confidence": 0.99,
            "main_game": interval(main.total.mean, main.total.half_width),
            "side_bet": interval(side_estimate.mean, side_estimate.half_width),
            "total_with_side_bet": interval(both.total.mean, both.total.half_width),
            "per_field": {e.field: interval(e.mean, e.half_width) for e in both.per_bet}}


def par_document(rules: Rules, analysis: Mapping[str, Any], *, side_lines: list[dict[str, Any]],
                 simulation: Mapping[str, Any] | None, version: str) -> dict[str, Any]:
    """The PAR sheet's JSON: every figure exact (``"p/q"``) beside its decimal."""
    ex = analysis["rules"]["exact"]
    total = ex["total_combinations"]
    house_edge = Fraction(ex["house_edge"])
    average_bet = Fraction(ex["average_total_bet"])
    variance = Fraction(ex["variance"])
    edge_side = side_edge(rules, analysis)
    side = SIDE_FIELD[rules.game]
    outcomes = [{"outcome": row["outcome"], "net": row["net"], "combinations": row["combinations"],
                 "probability": exact(Fraction(row["combinations"], total)),
                 "return": exact(Fraction(row["combinations"] * row["net"], total))}
                for row in analysis["outcomes"]]
    hit = Fraction(sum(row["combinations"] for row in analysis["outcomes"] if row["net"] > 0), total)
    side_mean, side_variance, side_hits = _side_moments(side_lines)
    limits = analysis["rules"]["limits"]
    max_net = max(row["net"] for row in analysis["outcomes"])
    max_pays = max(line["pays"] for line in side_lines)
    if isinstance(rules, TexasBonusRules) and rules.both_aces_pays > max_pays:
        max_pays = rules.both_aces_pays
    exposure_main = max_net * limits["ante"]["max"]
    exposure_side = max_pays * limits[side]["max"]
    document: dict[str, Any] = {
        "kind": "par-sheet", "dealerpoker": version, "game": rules.game,
        "title": analysis["rules"].get("title", rules.game),
        "rules_version": analysis["rules"].get("rules_version"),
        "rules_fingerprint": analysis["rules"]["fingerprint"], "deck": analysis["rules"]["deck"],
        "algorithm_version": analysis["rules"]["algorithm_version"],
        "strategy": "optimal (the exact solver's decisions)",
        "total_combinations": total,
        "house_edge": {"exact": ex["house_edge"], "decimal": analysis["house_edge"]},
        "element_of_risk": {"exact": ex["element_of_risk"], "decimal": analysis["element_of_risk"]},
        "average_total_bet": {"exact": ex["average_total_bet"], "decimal": analysis["average_total_bet"]},
        "variance": exact(variance), "std_dev": analysis["std_dev"],
        "play_frequency": {"exact": ex["play_frequency"], "decimal": analysis["play_frequency"]},
        "hit_frequency": exact(hit),
        "rtp": {
            "main_game_per_ante": exact(1 - house_edge),
            "main_game_per_amount_wagered": exact(1 - Fraction(ex["element_of_risk"])),
            side: exact(1 - edge_side),
            "total_one_unit_side_bet": exact(1 - (house_edge + edge_side) / (average_bet + 1)),
        },
        "outcomes": outcomes,
        "side_bet": {"field": side, "house_edge": exact(edge_side), "lines": side_lines,
                     "hit_frequency": exact(side_hits), "variance_settled": exact(side_variance),
                     "std_dev_settled": sqrt(side_variance), "mean_settled": exact(side_mean),
                     **({"settles_on_fold": analysis["side_bets"]["aa"]["settles_on_fold"],
                         "house_edge_settled_on_fold": exact(Fraction(
                             analysis["side_bets"]["aa"]["exact_settled_on_fold"])),
                         "house_edge_lost_on_fold": exact(Fraction(
                             analysis["side_bets"]["aa"]["exact_lost_on_fold"])),
                         "winning_hands_folded": analysis["side_bets"]["aa"]["winning_hands_folded"]}
                        if side == "aa" else {})},
        "exposure": {"max_net_per_ante": max_net, "ante_max": limits["ante"]["max"],
                     "max_side_pays": max_pays, "side_max": limits[side]["max"],
                     "main_game": exposure_main, "side_bet": exposure_side,
                     "per_round_per_seat": exposure_main + exposure_side,
                     "unit": "minor units of the rules' limits"},
        "rules": {k: v for k, v in analysis["rules"].items() if k != "exact"},
        "simulation": None,
    }
    if rules.game == "texas-bonus":
        document["decisions"] = {
            "turn_bet_frequency": ex["turn_bet_frequency"], "river_bet_frequency": ex["river_bet_frequency"],
            "starting_hands": [{"hand": name, "action": h["action"], "ev_bet": exact(Fraction(h["exact"])),
                                "combinations": h["combos"], "turn_bet_frequency": h["turn_bet_frequency"],
                                "river_bet_frequency": h["river_bet_frequency"]}
                               for name, h in analysis["two_card_ev"].items()]}
    else:
        document["decisions"] = {"raise_by_flop_situation": ex["strategy"]}
    if simulation is not None:
        exact_values = {"main_game": -house_edge, "side_bet": -edge_side,
                        "total_with_side_bet": -house_edge - edge_side}
        rows = {}
        for name, value in exact_values.items():
            low, high = simulation[name]["ci99"]
            rows[name] = {**simulation[name], "exact": exact(value),
                          "exact_within": low <= float(value) <= high}
        document["simulation"] = {k: v for k, v in simulation.items() if k not in exact_values} | rows
    return document


def _frac_cells(figure: Mapping[str, Any]) -> list[Any]:
    return [figure["decimal"], Fraction(figure["exact"])]


def par_html(doc: Mapping[str, Any]) -> str:
    title = f"PAR sheet — {doc['title']}"
    side = doc["side_bet"]["field"]
    rtp = doc["rtp"]
    parts = [f"<h1>{escape(title)}</h1>",
             f'<p class="meta">Rules version <b>{escape(str(doc["rules_version"]))}</b>, rules fingerprint '
             f'<code>{doc["rules_fingerprint"]}</code>; deck {escape(doc["deck"])}; dealerpoker '
             f'{escape(doc["dealerpoker"])}, analysis algorithm {escape(doc["algorithm_version"])}. '
             f"Exact figures: integer counts over all {doc['total_combinations']:,} deals under the "
             "optimal strategy (no sampling); per unit of ante.</p>",
             "<h2>Return to player</h2>",
             table(["figure", "decimal", "exact fraction"], [
                 ["RTP, main game, per ante", *_frac_cells(rtp["main_game_per_ante"])],
                 ["RTP, main game, per amount wagered (ante and follow-up bets)",
                  *_frac_cells(rtp["main_game_per_amount_wagered"])],
                 [f"RTP, {side} side bet", *_frac_cells(rtp[side])],
                 [f"RTP in total, main game with one unit on the {side} bet",
                  *_frac_cells(rtp["total_one_unit_side_bet"])],
                 ["house edge (per ante; a fold counts -1)", *_frac_cells(doc["house_edge"])],
                 ["element of risk", *_frac_cells(doc["element_of_risk"])],
                 ["average total bet (antes)", *_frac_cells(doc["average_total_bet"])],
                 ["hit frequency (rounds the main game wins)", *_frac_cells(doc["hit_frequency"])],
                 ["play frequency", *_frac_cells(doc["play_frequency"])],
                 ["variance per round (antes²)", *_frac_cells(doc["variance"])],
                 ["standard deviation per round (antes)", doc["std_dev"], None]]),
             "<h2>Every outcome of the main game</h2>",
             table(["outcome", "net (antes)", "combinations", "probability", "exact probability", "return"],
                   [[o["outcome"], o["net"], o["combinations"], o["probability"]["decimal"],
                     Fraction(o["probability"]["exact"]), o["return"]["decimal"]] for o in doc["outcomes"]]),
             "<h2>Maximum payout per round (exposure)</h2>",
             table(["", "per ante / unit", "bet maximum", "maximum win"], [
                 ["main game", doc["exposure"]["max_net_per_ante"], doc["exposure"]["ante_max"],
                  doc["exposure"]["main_game"]],
                 [f"{side} side bet", doc["exposure"]["max_side_pays"], doc["exposure"]["side_max"],
                  doc["exposure"]["side_bet"]],
                 ["one seat, one round (both at once)", None, None, doc["exposure"]["per_round_per_seat"]]]),
             f"<p>Amounts in {escape(doc['exposure']['unit'])}.</p>",
             f"<h2>The {escape(side)} side bet alone</h2>",
             table(["line", "pays (to 1)", "combinations", "probability", "exact probability", "return"],
                   [[line["line"], line["pays"], line["combinations"], line["probability"]["decimal"],
                     Fraction(line["probability"]["exact"]), line["return"]["decimal"]]
                    for line in doc["side_bet"]["lines"]]),
             table(["figure", "decimal", "exact fraction"], [
                 ["house edge under these rules", *_frac_cells(doc["side_bet"]["house_edge"])],
                 ["hit frequency", *_frac_cells(doc["side_bet"]["hit_frequency"])],
                 ["variance when settled", *_frac_cells(doc["side_bet"]["variance_settled"])],
                 ["standard deviation when settled", doc["side_bet"]["std_dev_settled"], None]])]
    if side == "aa":
        s = doc["side_bet"]
        parts.append(f"<p>The AA bet is {'settled' if s['settles_on_fold'] else 'lost'} when the player "
                     "folds. House edge if settled on a fold: "
                     f"{percent(s['house_edge_settled_on_fold']['decimal'])}; "
                     "if lost on a fold (optimal raise strategy): "
                     f"{percent(s['house_edge_lost_on_fold']['decimal'])} — the strategy folds "
                     f"{s['winning_hands_folded']:,} AA-winning flop situations.</p>")
    parts.append("<h2>The optimal strategy</h2>")
    decisions = doc["decisions"]
    if doc["game"] == "texas-bonus":
        parts.append(f"<p>Turn bets: {percent(decisions['turn_bet_frequency'])} of flops played; river bets: "
                     f"{percent(decisions['river_bet_frequency'])} of turns played (bet iff the bet's "
                     "exact EV is higher; <code>dealerpoker advise</code> gives any single decision).</p>")
        parts.append(table(["starting hand", "pre-flop", "EV of the flop bet", "exact EV", "combinations",
                            "turn bets", "river bets"],
                           [[h["hand"], h["action"], h["ev_bet"]["decimal"], Fraction(h["ev_bet"]["exact"]),
                             h["combinations"], percent(h["turn_bet_frequency"], 2),
                             percent(h["river_bet_frequency"], 2)] for h in decisions["starting_hands"]]))
    else:
        parts.append("<p>Raise or fold at the flop: raise iff the raise's exact EV is higher (per flop "
                     "situation of 1,755 canonical flops × 1,176 holdings; <code>dealerpoker advise</code> "
                     "gives any single decision). Summary by hand at the flop:</p>")
        parts.append(table(["flop situation", "situations", "raised", "raise frequency"],
                           [[s["situation"], s["situations"], s["raised"], percent(s["raise_frequency"], 2)]
                            for s in decisions["raise_by_flop_situation"]]))
    sim = doc["simulation"]
    if sim is not None:
        parts.append("<h2>Simulation cross-check</h2>")
        parts.append(f"<p>{sim['rounds']:,} rounds per run, optimal strategy, seeds {sim['seeds']}; mean net "
                     "per ante with its 99% confidence interval beside the exact value.</p>")
        rows = []
        for name, label in (("main_game", "main game"), ("side_bet", f"{side} side bet"),
                            ("total_with_side_bet", "main game + one unit side bet")):
            r = sim[name]
            rows.append([label, r["exact"]["decimal"], r["mean"], f"[{r['ci99'][0]:.6f}, {r['ci99'][1]:.6f}]",
                         verdict(r["exact_within"])])
        parts.append(table(["net per ante", "exact", "simulated", "99% interval", "exact inside"], rows,
                           raw=True))
    footer = f"Generated by dealerpoker {escape(doc['dealerpoker'])}. Source data: the JSON beside this page."
    return page(title, "\n".join(parts), footer=footer)
