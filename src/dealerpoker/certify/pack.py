"""The pack on disk: each part as a printable HTML page and the JSON it was made from, an
``index.html`` linking them, and ``SHA256SUMS`` over every file (``sha256sum -c SHA256SUMS``)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from typing import Any

from dealerpoker.certify.html import page, table


@dataclass
class Part:
    section: str
    title: str
    html: str
    json: str | None
    summary: str


@dataclass
class Pack:
    """Files written into ``directory`` as they come; :meth:`finish` writes the index and sums."""

    directory: Path
    meta: dict[str, Any]
    parts: list[Part] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)

    def add(self, section: str, name: str, title: str, html: str, document: Any | None, *,
            summary: str = "") -> None:
        """Write ``name.html`` (and ``name.json`` when there is a document)."""
        (self.directory / f"{name}.html").write_text(html, "utf-8")
        json_name = None
        if document is not None:
            json_name = f"{name}.json"
            (self.directory / json_name).write_text(json.dumps(document, indent=1, sort_keys=True) + "\n",
                                                    "utf-8")
        self.parts.append(Part(section, title, f"{name}.html", json_name, summary))

    def add_file(self, section: str, name: str, title: str, content: str, *, summary: str = "") -> None:
        (self.directory / name).write_text(content, "utf-8")
        self.parts.append(Part(section, title, name, None, summary))

    def finish(self) -> Path:
        index = self._index()
        (self.directory / "index.html").write_text(index, "utf-8")
        (self.directory / "pack.json").write_text(json.dumps(
            {**self.meta, "parts": [dict(p.__dict__) for p in self.parts]},
            indent=1, sort_keys=True) + "\n", "utf-8")
        sums = self.directory / "SHA256SUMS"
        lines = []
        for path in sorted(p for p in self.directory.rglob("*") if p.is_file() and p != sums):
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            lines.append(f"{digest}  {path.relative_to(self.directory).as_posix()}\n")
        sums.write_text("".join(lines), "ascii")
        return sums

    def _index(self) -> str:
        meta = self.meta
        body = [f"<h1>Certification pack — dealerpoker {escape(str(meta['dealerpoker']))}</h1>",
                f'<p class="meta">Generated {escape(str(meta["generated_at"]))} UTC on '
                f"{escape(str(meta['machine']))}; jurisdiction: "
                f"{escape(str(meta.get('jurisdiction') or 'none named'))}."
                " Every page prints to PDF from a browser; each has the JSON it was made from beside it. "
                "<code>sha256sum -c SHA256SUMS</code> in this folder checks every file.</p>",
                table(["setting", "value"],
                      [[k, escape(str(v))] for k, v in meta.get("settings", {}).items()], raw=True)]
        sections: dict[str, list[Part]] = {}
        for part in self.parts:
            sections.setdefault(part.section, []).append(part)
        for section, parts in sections.items():
            body.append(f"<h2>{escape(section)}</h2>")
            rows = []
            for part in parts:
                link = f'<a href="{escape(part.html)}">{escape(part.title)}</a>'
                data = f'<a href="{escape(part.json)}">{escape(part.json)}</a>' if part.json else "—"
                rows.append([link, data, escape(part.summary)])
            body.append(table(["page", "data", "summary"], rows, raw=True))
        body.append('<p><a href="pack.json">pack.json</a> lists the parts; '
                    '<a href="SHA256SUMS">SHA256SUMS</a> has the SHA-256 of every file.</p>')
        return page("Certification pack — dealerpoker", "\n".join(body),
                    footer="Regenerate with <code>dealerpoker certify --out DIR</code>; "
                           "see docs/certification.md.")
