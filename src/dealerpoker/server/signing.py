"""The deployment's Ed25519 key: every record the server hands out is signed with it.

The key is a PEM file (PKCS #8, unencrypted) at ``Settings.signing_key_file`` (``serve
--signing-key``; default ``dealerpoker-signing.key`` in the working directory), generated at the
first start if absent, readable by its owner only (0600). Every process of a deployment must use
the same file (``serve --workers N`` creates it once before the workers start; on several hosts,
copy it). Without a file (``Settings()`` in tests and library use) a key is drawn for the
process alone. The public key is published at ``GET /api/fairness/public-key``; what is signed is
described in :mod:`dealerpoker.fairness.signature`.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)

from dealerpoker.fairness.signature import public_key_bytes, public_key_document, sign_record
from dealerpoker.server.settings import SettingsError

log = logging.getLogger("dealerpoker.server")

__all__ = ["RecordSigner"]


class RecordSigner:
    """Signs records with the deployment's key."""

    def __init__(self, private_key: Ed25519PrivateKey, *, source: str) -> None:
        self._key = private_key
        self.source = source
        """Where the key came from (a file path, or ``"memory"``)."""
        self.public_key = public_key_bytes(private_key.public_key())
        """The raw 32-byte public key."""

    @classmethod
    def ephemeral(cls) -> RecordSigner:
        """A key for this process only (nothing outside it can check its signatures later)."""
        return cls(Ed25519PrivateKey.generate(), source="memory")

    @classmethod
    def from_file(cls, path: str | None, *, create: bool = True) -> RecordSigner:
        """The key in ``path`` (generated there first, 0600, when absent and ``create``)."""
        if path is None:
            return cls.ephemeral()
        file = Path(path)
        if create and not file.exists():
            _create(file)
        try:
            data = file.read_bytes()
        except OSError as error:
            raise SettingsError(f"signing key {path}: cannot read it ({error.strerror or error})") from None
        try:
            key = load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as error:
            raise SettingsError(f"signing key {path}: not an unencrypted PEM private key ({error})") from None
        if not isinstance(key, Ed25519PrivateKey):
            raise SettingsError(f"signing key {path}: not an Ed25519 key ({type(key).__name__})")
        mode = file.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("signing key %s is readable by others (mode %o): chmod 600 it", path, mode & 0o777)
        return cls(key, source=str(file))

    def sign(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return sign_record(record, self._key)

    def public_document(self) -> dict[str, str]:
        """The body of ``GET /api/fairness/public-key``."""
        return {**public_key_document(self._key.public_key())}


def _create(file: Path) -> None:
    """Write a new key, readable by its owner only, whole or not at all (a private file linked
    into place); another process creating it at the same moment wins (its key is then read)."""
    pem = Ed25519PrivateKey.generate().private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
    partial = file.with_name(f".{file.name}.{os.getpid()}.partial")
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            out.write(pem)
            out.flush()
            os.fsync(out.fileno())
        try:
            os.link(partial, file)
        except FileExistsError:
            return
    except OSError as error:
        raise SettingsError(f"signing key {file}: cannot create it ({error.strerror or error})") from None
    finally:
        partial.unlink(missing_ok=True)
    log.info("generated the deployment's record signing key in %s (keep it; its public key is at "
             "GET /api/fairness/public-key)", file)
