"""The package's import structure: no import circle anywhere (function-level imports included),
and every module of the server placed in one of the server's layers (``pyproject.toml``'s
import-linter contract, which ``make check`` keeps; docs/architecture.md draws them).

A circle is a design question (which of the two owns the concept?), not a place for a lazy
import, so the imports inside functions count here as at the top of a module."""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"


def modules(source: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``source``: dotted name -> file (a package is its __init__)."""
    found = {}
    for path in sorted((source / package.replace(".", "/")).rglob("*.py")):
        parts = path.relative_to(source).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: Mapping[str, Path]) -> Iterator[str]:
    """The modules of ``known`` that ``name`` imports, wherever the import stands in the file."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import a.b.c` of a name inside c: c's module
                target = target.rpartition(".")[0]
            if target and target != name:
                yield target


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def import_graph(source: Path, package: str) -> dict[str, set[str]]:
    known = modules(source, package)
    return {name: set(imports(name, path, known)) for name, path in known.items()}


def test_no_import_circle_anywhere_in_the_package() -> None:
    found = circles(import_graph(SOURCE, "dealerpoker"))
    assert found == [], "import circles (function-level imports included): " + "; ".join(
        " <-> ".join(circle) for circle in found)


def test_a_circle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.sub import b\n")
    (package / "sub" / "b.py").write_text("def late():\n    from ..a import x\n    return x\n")
    (package / "c.py").write_text("import pkg.a\n")
    assert circles(import_graph(tmp_path, "pkg")) == [["pkg.a", "pkg.sub.b"]]


def _server_layers() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"]
                    if c.get("containers") == ["dealerpoker.server"])
    names = []
    for layer in contract["layers"]:
        for separator in "|:":
            layer = layer.replace(separator, " ")
        names += [f"dealerpoker.server.{name}" for name in layer.split()]
    return names


def test_every_server_module_stands_in_a_layer_of_the_import_contract() -> None:
    layers = _server_layers()
    known = modules(SOURCE, "dealerpoker.server")
    unplaced = [name for name, path in known.items() if path.name != "__init__.py"
                and not any(name == layer or name.startswith(layer + ".") for layer in layers)]
    assert unplaced == [], ("modules in no layer of the server's import contract (pyproject.toml; "
                            f"docs/architecture.md): {unplaced}")
    assert not [layer for layer in layers if layer not in known], "a layer names no module"
