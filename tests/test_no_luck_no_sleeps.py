"""Tests never depend on luck or on a fixed sleep (docs/architecture.md, "How the tests run"): a test
that needs an outcome deals its cards (``tests/support/dealing.py``), and one that waits, waits on
an event or polls with a deadline (``tests/support/waiting.py``). This check reads the suite for
the shapes those mistakes take, on lines that do not say they poll up to a deadline:

* a fixed wait: ``sleep(N)`` or Playwright's ``wait_for_timeout``;
* a loop hoping for an outcome: ``for _ in range(N):``, or any loop over ``range(N)`` (N written
  out) that stops early (``break``/``return``): "play up to 80 rounds until the Bonus wins".
  A loop doing a fixed number of things (three rounds, 25 requests) names what it counts.

A new one anywhere fails, naming the line (the suite had 39 when the check came in, issue 32;
they were all rewritten).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

SUITE = Path(__file__).parent
SHAPES = re.compile(r"for _ in range\([0-9]+\):|(time|asyncio)\.sleep\([0-9.]+\)|wait_for_timeout\(")
SAYS_IT_POLLS = re.compile(r"deadline|poll")
LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a loop's body that belong to this loop (not to a loop or function inside it)."""
    for node in body:
        yield node
        if not isinstance(node, LOOPS + SCOPES):
            yield from _own_statements(list(ast.iter_child_nodes(node)))  # type: ignore[arg-type]


def _stops_early(loop: ast.For | ast.AsyncFor) -> bool:
    return any(isinstance(node, ast.Break | ast.Return) for node in _own_statements(loop.body))


def _counted_loops(tree: ast.AST) -> Iterator[ast.For | ast.AsyncFor]:
    """``for ... in range(N)`` loops, N written out."""
    for node in ast.walk(tree):
        if (isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.iter, ast.Call)
                and isinstance(node.iter.func, ast.Name) and node.iter.func.id == "range"
                and all(isinstance(argument, ast.Constant) for argument in node.iter.args)):
            yield node


def suspect_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) of each fixed sleep and each loop hoping for an outcome, on lines that
    do not say they poll up to a deadline."""
    lines = text.splitlines()
    numbers = {number for number, line in enumerate(lines, 1) if SHAPES.search(line)}
    numbers |= {loop.lineno for loop in _counted_loops(ast.parse(text)) if _stops_early(loop)}
    return [(number, lines[number - 1].strip()) for number in sorted(numbers)
            if not SAYS_IT_POLLS.search(lines[number - 1])]


def test_the_check_finds_each_shape_and_lets_a_deadline_poll_be() -> None:
    # split, so this file does not show the shapes itself
    sleep, loop, wait = "sleep(", "for _ in range(", "wait_for_" + "timeout("
    found = suspect_lines(f"time.{sleep}1.5)\nawait asyncio.{sleep}0.3)\npage.{wait}500)\n"
                          f"{loop}80):\n    pass\n"
                          f"time.{sleep}0.02)  # poll until the deadline\nuntil(lambda: done, 'it ends')\n"
                          "for attempt in range(80):\n    if won():\n        break\n"
                          "for request in range(25):\n    send()\n"
                          "for card in range(52):\n    while True:\n        break\n")
    assert [number for number, _ in found] == [1, 2, 3, 4, 8]


def test_no_fixed_sleep_or_loop_waiting_for_an_outcome() -> None:
    found = {path.relative_to(SUITE).as_posix(): [f"{number}: {line}" for number, line in lines]
             for path in sorted(SUITE.rglob("*.py")) if (lines := suspect_lines(path.read_text()))}
    assert not found, ("deal the cards the test needs (tests/support/dealing.py) and wait on an event or "
                       f"with tests/support/waiting.py instead: {found}")
