"""What `verify` trusts besides the record: the deployment's public key and its approved rules.

* ``--public-key FILE``: the deployment's Ed25519 public key (PEM, or the JSON of
  ``GET /api/fairness/public-key``): every record must carry the server's signature under it.
* ``--rules-dir DIR``: the approved rules documents, one JSON file each (``*.json``: a rules
  document, or the body of ``GET /api/rules/{fingerprint}``): every record's rules must be one.
* ``--server URL``: both from a running server: its public key (unless ``--public-key`` is
  given: a file the lab keeps wins over the network) and, per record, the document it publishes
  under the record's fingerprint (``GET /api/rules/{fingerprint}``), which must hash to it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealerpoker.fairness.signature import public_key_from_text, rules_sha256

_TIMEOUT_SECONDS = 15
_MAX_BYTES = 4 * 1024 * 1024


class AnchorError(ValueError):
    """A trust anchor that cannot be used (the message says which and why, in one line)."""


@dataclass
class Anchors:
    public_key: bytes | None = None
    rules: set[str] | None = None
    """Full SHA-256 of the approved documents from ``--rules-dir``."""
    server: str | None = None
    _published: dict[str, set[str]] = field(default_factory=dict)

    @property
    def checks_signature(self) -> bool:
        return self.public_key is not None

    @property
    def checks_rules(self) -> bool:
        return self.rules is not None or self.server is not None

    def approved_for(self, record: Mapping[str, Any]) -> Collection[str] | None:
        """The approved rules a record's must be one of (None: rules not checked)."""
        if self.server is None:
            return self.rules
        fingerprint = record.get("rules_fingerprint")
        published: set[str] = set()
        if isinstance(fingerprint, str) and len(fingerprint) in (16, 64) \
                and all(c in "0123456789abcdef" for c in fingerprint):
            if fingerprint not in self._published:
                self._published[fingerprint] = self._fetch_rules(fingerprint)
            published = self._published[fingerprint]
        return published | (self.rules or set())

    def _fetch_rules(self, fingerprint: str) -> set[str]:
        assert self.server is not None
        body = _get(self.server, f"/api/rules/{fingerprint}", missing_ok=True)
        if not isinstance(body, dict) or "document" not in body:
            return set()
        try:
            digest = rules_sha256(body["document"])
        except (TypeError, ValueError):  # not canonical JSON (NaN, say): not a rules document
            return set()
        return {digest} if digest.startswith(fingerprint) else set()  # a server must serve what it names


def load_anchors(public_key: str | None, rules_dir: str | None, server: str | None) -> Anchors:
    anchors = Anchors(server=None if server is None else server.rstrip("/"))
    if public_key is not None:
        try:
            text = Path(public_key).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or error
            raise AnchorError(f"--public-key {public_key}: {reason}") from None
        try:
            anchors.public_key = public_key_from_text(text)
        except ValueError as error:
            raise AnchorError(f"--public-key {public_key}: {error}") from None
    elif anchors.server is not None:
        document = _get(anchors.server, "/api/fairness/public-key")
        try:
            anchors.public_key = public_key_from_text(json.dumps(document))
        except ValueError as error:
            raise AnchorError(f"--server {server}: its public key: {error}") from None
    if rules_dir is not None:
        anchors.rules = _rules_from_dir(rules_dir)
    return anchors


def _rules_from_dir(directory: str) -> set[str]:
    folder = Path(directory)
    if not folder.is_dir():
        raise AnchorError(f"--rules-dir {directory}: not a directory")
    approved: set[str] = set()
    for path in sorted(folder.glob("*.json")):
        try:
            document = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
            raise AnchorError(f"--rules-dir: {path}: not a JSON rules document ({error})") from None
        if isinstance(document, dict) and isinstance(document.get("document"), dict):
            document = document["document"]  # the body of GET /api/rules/{fingerprint}
        if not isinstance(document, dict):
            raise AnchorError(f"--rules-dir: {path}: a rules document is a JSON object")
        approved.add(rules_sha256(document))
    if not approved:
        raise AnchorError(f"--rules-dir {directory}: no *.json rules documents in it")
    return approved


def _get(server: str, path: str, *, missing_ok: bool = False) -> Any:
    url = server + path
    if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
        raise AnchorError(f"--server {server}: expected an http:// or https:// URL")
    try:
        with urllib.request.urlopen(url, timeout=_TIMEOUT_SECONDS) as response:
            body = response.read(_MAX_BYTES + 1)
    except urllib.error.HTTPError as error:
        if missing_ok and error.code == 404:
            return None
        raise AnchorError(f"--server: GET {url}: HTTP {error.code}") from None
    except (urllib.error.URLError, OSError) as error:
        raise AnchorError(f"--server: GET {url}: {getattr(error, 'reason', None) or error}") from None
    if len(body) > _MAX_BYTES:
        raise AnchorError(f"--server: GET {url}: answer larger than {_MAX_BYTES} bytes")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise AnchorError(f"--server: GET {url}: not JSON") from None
