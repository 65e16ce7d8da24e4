"""The software manifest: SHA-256 of every critical file of the installed package, and the checks
against it (at start, at intervals, on demand with a seed the lab chooses).

Critical files: the package's Python modules, its web files (pages, scripts, styles, catalogues),
the shipped rules and tables, the database migrations and their configuration, the operator demo
page, the API documentation page. ``software-manifest.json`` sits in the package directory (a
release writes it at build or install time with ``dealerpoker certify manifest``); a development
checkout has none, and says so.

On-demand verification (GAT-style): for a seed (hex) chosen by the lab, each file's
``HMAC-SHA256(key = seed bytes, message = file bytes)`` in hex, and over the whole manifest
``HMAC-SHA256(key = seed bytes, message = for each file in path order: path (UTF-8), a tab, its
HMAC in hex, a newline)``. A lab computes the same from its own copy of the files; the seed makes
a stored answer useless.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MANIFEST_NAME = "software-manifest.json"
#: What is critical, as globs relative to the package directory.
CRITICAL = ("**/*.py", "web/**/*", "games/rules/*.toml", "tables/*.toml", "server/migrations/**/*",
            "server/*.ini", "server/*.toml", "server/docs_page/*", "operator_demo/*.html", "py.typed")
SKIPPED_PARTS = ("__pycache__",)


class ManifestError(ValueError):
    """A manifest that cannot be read or a seed that is not hex (the message names it)."""


def package_root() -> Path:
    import dealerpoker

    return Path(dealerpoker.__file__).resolve().parent


def critical_files(root: Path) -> list[str]:
    """Every critical file under ``root``, as sorted POSIX paths relative to it."""
    found: set[str] = set()
    for pattern in CRITICAL:
        for path in root.glob(pattern):
            if path.is_file() and not any(part in SKIPPED_PARTS for part in path.parts) \
                    and path.name != MANIFEST_NAME and path.suffix not in (".pyc", ".pyo"):
                found.add(path.relative_to(root).as_posix())
    return sorted(found)


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_manifest(root: Path, version: str) -> dict[str, Any]:
    files = {name: sha256_file(root / name) for name in critical_files(root)}
    listing = "".join(f"{name}\t{digest}\n" for name, digest in files.items()).encode("utf-8")
    return {"kind": "dealerpoker-software-manifest", "version": version,
            "build_id": hashlib.sha256(listing).hexdigest(), "algorithm": "sha256", "files": files}


def write_manifest(root: Path, version: str, target: Path | None = None) -> tuple[Path, dict[str, Any]]:
    manifest = build_manifest(root, version)
    path = target or root / MANIFEST_NAME
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n", "utf-8")
    return path, manifest


def load_manifest(root: Path) -> dict[str, Any] | None:
    """The installed manifest, or ``None`` (a development checkout)."""
    path = root / MANIFEST_NAME
    if not path.is_file():
        return None
    try:
        manifest: dict[str, Any] = json.loads(path.read_text("utf-8"))
    except ValueError as error:
        raise ManifestError(f"{path}: not a manifest ({error})") from None
    if not isinstance(manifest.get("files"), dict):
        raise ManifestError(f"{path}: not a manifest (no 'files')")
    return manifest


@dataclass(frozen=True)
class Difference:
    path: str
    problem: str  # "changed", "missing", "not in the manifest"

    def __str__(self) -> str:
        return f"{self.path} ({self.problem})"

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "problem": self.problem}


def differences(root: Path, manifest: Mapping[str, Any]) -> list[Difference]:
    """The critical files that differ from the manifest: changed, missing, or new."""
    listed: Mapping[str, str] = manifest["files"]
    found = set(critical_files(root))
    out = []
    for name, digest in sorted(listed.items()):
        path = root / name
        if not path.is_file():
            out.append(Difference(name, "missing"))
        elif sha256_file(path) != digest:
            out.append(Difference(name, "changed"))
    out += [Difference(name, "not in the manifest") for name in sorted(found - set(listed))]
    return out


def seed_bytes(seed: str) -> bytes:
    text = seed.strip()
    if not text or len(text) % 2 or len(text) > 256:
        raise ManifestError("seed: expected an even number of hex digits (2 to 256)")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise ManifestError("seed: expected hex digits 0-9 a-f") from None


def seeded_hmacs(root: Path, names: Iterable[str], seed: str) -> dict[str, Any]:
    """Each file's HMAC-SHA256 under the seed and the whole manifest's (see the module doc)."""
    key = seed_bytes(seed)
    files = []
    for name in sorted(names):
        path = root / name
        value = hmac.new(key, path.read_bytes(), hashlib.sha256).hexdigest() if path.is_file() else None
        files.append({"path": name, "hmac": value})
    listing = "".join(f"{f['path']}\t{f['hmac'] or ''}\n" for f in files).encode("utf-8")
    return {"seed": seed.strip().lower(), "algorithm": "hmac-sha256", "files": files,
            "manifest_hmac": hmac.new(key, listing, hashlib.sha256).hexdigest()}


def manifest_html(manifest: Mapping[str, Any]) -> str:
    from html import escape

    from dealerpoker.certify.html import page, table

    body = [f"<h1>Software manifest — dealerpoker {escape(str(manifest['version']))}</h1>",
            f'<p class="meta">Build id <code>{manifest["build_id"]}</code> (SHA-256 of the file list '
            f"below: each path, a tab, its SHA-256, a newline). {len(manifest['files'])} critical files; "
            "paths relative to the installed package directory. <code>dealerpoker certify verify --seed "
            "HEX</code> and <code>POST /operator/v1/software/verify</code> answer HMAC-SHA256 under a "
            "seed the lab chooses.</p>",
            table(["file", "SHA-256"], [[escape(name), f"<code>{digest}</code>"]
                                        for name, digest in manifest["files"].items()], raw=True)]
    return page(f"Software manifest — dealerpoker {manifest['version']}", "\n".join(body),
                footer="The JSON beside this page is the manifest itself.")
