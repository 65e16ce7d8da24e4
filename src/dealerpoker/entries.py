"""The entries of a TOML configuration file of ``[[NAME]]`` tables (the live tables file, the
operators file): one parser of the file, its list of entries, their keys, their ids and the
secrets they name, so each file refuses a bad entry with the same texts, naming the file and
the entry, and nothing is half-loaded.

>>> class BadFile(ValueError): ...
>>> text = '[[things]]\\nid = "a"\\n[[things]]\\nid = "a"'
>>> rows = toml_entries(text, "things", where="t.toml", error=BadFile)
>>> entry = Entry("t.toml: things[1]", ".", BadFile)
>>> entry.keys(rows[1], {"id"})["id"]
'a'
>>> entry.unique_id("a", ["a"])
Traceback (most recent call last):
...
dealerpoker.entries.BadFile: t.toml: things[1].id: 'a' is used by an earlier entry
>>> Entry("t.toml: things[0] (id 'a')", ": ", BadFile).secret({"key_env": "K"}, "key", {}, minimum=16)
Traceback (most recent call last):
...
dealerpoker.entries.BadFile: t.toml: things[0] (id 'a'): key_env: the environment variable 'K' is not set
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def read_file(path: str | Path, what: str, error: type[Exception]) -> str:
    """The text of the ``what`` file at ``path`` (``error``: it cannot be read)."""
    try:
        return Path(path).read_text("utf-8")
    except OSError as problem:
        raise error(f"{path}: cannot read {what} file: {problem.strerror}") from None


def toml_entries(text: str, name: str, *, where: str, error: type[Exception]) -> list[Any]:
    """The ``[[name]]`` entries of a TOML document (at least one; nothing else at its top)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{where}: not valid TOML: {problem}") from None
    unknown = set(document) - {name}
    if unknown:
        raise error(f"{where}: {sorted(unknown)[0]}: unknown entry (expected [[{name}]])")
    rows = document.get(name)
    if not isinstance(rows, list) or not rows:
        raise error(f"{where}: {name}: expected at least one [[{name}]] entry")
    return rows


@dataclass(frozen=True, slots=True)
class Entry:
    """How one entry's errors name it: ``where`` (the file and the entry, e.g. ``tables.toml:
    tables[0]``), then ``sep`` before one of its keys (``.`` or ``: ``)."""

    where: str
    sep: str
    error: type[Exception]

    def at(self, key: str) -> str:
        return f"{self.where}{self.sep}{key}"

    def fail(self, key: str, problem: str) -> Exception:
        """The error naming ``key`` of this entry and its problem (raise it)."""
        return self.error(f"{self.at(key)}: {problem}")

    def keys(self, row: Any, allowed: Collection[str]) -> Mapping[str, Any]:
        """``row`` if it is a table of ``allowed`` keys only."""
        if not isinstance(row, Mapping):
            raise self.error(f"{self.where}: expected a table")
        unknown = set(row) - set(allowed)
        if unknown:
            raise self.fail(sorted(unknown)[0], f"unknown entry (entries: {', '.join(sorted(allowed))})")
        return row

    def unique_id(self, found: str, earlier: Iterable[str]) -> str:
        if found in earlier:
            raise self.fail("id", f"{found!r} is used by an earlier entry")
        return found

    def secret(self, row: Mapping[str, Any], key: str, environ: Mapping[str, str], *, minimum: int) -> str:
        """The secret given as ``key`` or, by the name of an environment variable, ``{key}_env``
        (exactly one); at least ``minimum`` characters. The messages never hold the secret."""
        variable_key = f"{key}_env"
        if (key in row) == (variable_key in row):
            raise self.error(f"{self.where}: expected exactly one of {key} and {variable_key}")
        if variable_key in row:
            variable = row[variable_key]
            if not isinstance(variable, str) or not variable:
                raise self.fail(variable_key, f"expected an environment variable's name, got {variable!r}")
            if not environ.get(variable):
                raise self.fail(variable_key, f"the environment variable {variable!r} is not set")
            value, source = environ[variable], f"{variable_key} ({variable})"
        else:
            value, source = row[key], key
            if not isinstance(value, str):
                raise self.fail(key, "expected a string")
        if len(value) < minimum:  # the message names the length, never the secret
            raise self.fail(source, f"expected at least {minimum} characters, got {len(value)}")
        return value
