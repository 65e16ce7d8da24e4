"""Records bound to the deployment: the server's Ed25519 signature and the approved rules.

A record's digest (``record_digest``) proves only that its content hangs together: anyone can
edit a paytable, re-settle, and recompute the fingerprint and the digest. What binds a record to
the deployment that dealt it is

* the server's **signature**: ``"signature": {"algorithm": "ed25519", "key_id", "value"}``, an
  Ed25519 signature (RFC 8032) with the deployment's key over the ASCII bytes of
  ``"dealerpoker-record-v1:" + record_digest``; ``key_id`` is the first 16 hex characters of the
  SHA-256 of the raw 32-byte public key; ``value`` is the 64-byte signature in hex. The digest
  leaves ``signature`` out (:data:`dealerpoker.fairness.checks.UNDIGESTED`), so a signed record
  hashes as before;
* the **approved rules**: the SHA-256 of the record's rules document (its canonical JSON, the
  full fingerprint) must be one the server publishes (``GET /api/rules/{fingerprint}``).

Pure: keys in, findings out (the ``cryptography`` library does the Ed25519 arithmetic).

>>> from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
>>> key = Ed25519PrivateKey.from_private_bytes(bytes(32))
>>> signed = sign_record({"round_id": "r1", "record_digest": "00" * 32}, key)
>>> signed["signature"]["algorithm"], len(signed["signature"]["value"])
('ed25519', 128)
>>> check = Checker()
>>> check_signature(check, signed, public_key_bytes(key.public_key()))
>>> check.findings[0].ok
True
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Collection, Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_public_key

from dealerpoker.fairness.canonical import canonical_json, sha256_hex
from dealerpoker.fairness.checks import Checker, record_digest

__all__ = [
    "SIGNATURE_ALGORITHM", "check_rules_approved", "check_signature", "key_id", "public_key_bytes",
    "public_key_document", "public_key_from_text", "rules_sha256", "sign_record", "signed_message",
]

SIGNATURE_ALGORITHM = "ed25519"
_PREFIX = "dealerpoker-record-v1:"


def signed_message(digest: str) -> bytes:
    """The bytes the server signs for a record with this digest."""
    return (_PREFIX + digest).encode("ascii")


def public_key_bytes(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)


def key_id(raw_public_key: bytes) -> str:
    """A short name of a public key: the first 16 hex characters of its SHA-256."""
    return hashlib.sha256(raw_public_key).hexdigest()[:16]


def sign_record(record: Mapping[str, Any], private_key: Ed25519PrivateKey) -> dict[str, Any]:
    """The record with the server's signature of its digest (as recomputed here) added last."""
    digest = record_digest(record)
    raw = public_key_bytes(private_key.public_key())
    signed = {key: value for key, value in record.items() if key != "signature"}
    signed["signature"] = {"algorithm": SIGNATURE_ALGORITHM, "key_id": key_id(raw),
                           "value": private_key.sign(signed_message(digest)).hex()}
    return signed


def public_key_document(public_key: Ed25519PublicKey) -> dict[str, str]:
    """What ``GET /api/fairness/public-key`` answers (``verify --public-key`` reads it back)."""
    raw = public_key_bytes(public_key)
    pem = public_key.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode("ascii")
    return {"algorithm": SIGNATURE_ALGORITHM, "key_id": key_id(raw), "public_key": raw.hex(),
            "public_key_pem": pem}


def public_key_from_text(text: str) -> bytes:
    """A raw Ed25519 public key from a PEM file, the JSON of ``GET /api/fairness/public-key``, or
    64 hex characters (ValueError, naming the problem, otherwise)."""
    stripped = text.strip()
    if stripped.startswith("-----BEGIN"):
        try:
            key = load_pem_public_key(stripped.encode("ascii"))
        except (ValueError, TypeError) as error:
            raise ValueError(f"not a PEM public key: {error}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError(f"not an Ed25519 public key ({type(key).__name__})")
        return public_key_bytes(key)
    if stripped.startswith("{"):
        try:
            document = json.loads(stripped)
        except ValueError:
            raise ValueError("not JSON (expected the body of GET /api/fairness/public-key)") from None
        if not isinstance(document, dict) or document.get("algorithm") != SIGNATURE_ALGORITHM \
                or not isinstance(document.get("public_key"), str):
            raise ValueError('expected {"algorithm": "ed25519", "public_key": "<64 hex>"}')
        stripped = document["public_key"]
    try:
        raw = bytes.fromhex(stripped)
    except ValueError:
        try:
            raw = base64.b64decode(stripped, validate=True)
        except binascii.Error:
            raise ValueError("expected a PEM public key, the JSON of GET /api/fairness/public-key, "
                             "or the 32-byte key in hex") from None
    if len(raw) != 32:
        raise ValueError(f"an Ed25519 public key is 32 bytes, this is {len(raw)}")
    return raw


def check_signature(check: Checker, record: Mapping[str, Any], raw_public_key: bytes) -> None:
    """The record is signed, with this key, over its content's digest."""
    signature = record.get("signature")
    if not isinstance(signature, Mapping):
        check.fail("signature", "the record is not signed (records are signed by the server since "
                                "issue 15): it cannot be tied to the deployment")
        return
    if signature.get("algorithm") != SIGNATURE_ALGORITHM:
        check.fail("signature.algorithm",
                   f"expected {SIGNATURE_ALGORITHM!r}, got {signature.get('algorithm')!r}")
        return
    if signature.get("key_id") != key_id(raw_public_key):
        check.fail("signature.key_id", f"signed with key {signature.get('key_id')!r}, not the given key "
                                       f"{key_id(raw_public_key)}")
        return
    try:
        value = bytes.fromhex(str(signature.get("value")))
        message = signed_message(record_digest(record))
        Ed25519PublicKey.from_public_bytes(raw_public_key).verify(value, message)
    except (ValueError, InvalidSignature):
        check.fail("signature", "does not match the record's content under the given key: the record was "
                                "altered, or made by someone else")
        return
    check.ok("signature", f"signed by the deployment's key {key_id(raw_public_key)} over this content")


def rules_sha256(document: Any) -> str:
    """The full fingerprint of a rules document: the SHA-256 of its canonical JSON."""
    return sha256_hex(canonical_json(document))


def check_rules_approved(check: Checker, record: Mapping[str, Any], approved: Collection[str]) -> None:
    """The record's rules document is one of the approved ones (by full SHA-256)."""
    try:
        actual = rules_sha256(record.get("rules"))
    except (TypeError, ValueError) as error:
        check.fail("rules_approved", f"the rules document cannot be hashed: {error}")
        return
    if actual in approved:
        check.ok("rules_approved", f"the rules (SHA-256 {actual}) are the published ones")
    else:
        check.fail("rules_approved", f"the rules (SHA-256 {actual}) are not among the published, approved "
                                     "rules documents: the round was not played under approved rules, or "
                                     "the record was altered")
