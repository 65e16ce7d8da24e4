"""Defect 9 in the browser: the page's verifier (web/js/signature.js, WebCrypto Ed25519) checks the
server's signature of a record, its digest and its rules against the published document, so a
record with a forged paytable (fingerprint and digest recomputed) is NOT VERIFIED in Chromium.
Its canonical JSON is byte for byte Python's. The files are served by Playwright's router."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tests.fairness.fairness_records import play_record

from dealerpoker.fairness.canonical import canonical_json
from dealerpoker.fairness.checks import record_digest
from dealerpoker.fairness.signature import public_key_document, rules_sha256, sign_record

pytestmark = pytest.mark.browser

KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
AWKWARD = {"b": [1, -2, 0, 10**15], "a": {"é": "naïve — ✔ 😀", "ctl": "\n\t\u0001\u007f", "q": "\"\\/"},
           "z": None, "t": True, "A": "", "€": []}


@pytest.fixture
def page(routed_page: Any) -> Any:
    return routed_page


def signed_record() -> dict[str, Any]:
    return sign_record(play_record(round_id="r-signed"), KEY)


def forged(record: dict[str, Any]) -> dict[str, Any]:
    """A Bonus line paying more, fingerprint and digest recomputed; the signature kept."""
    fake = copy.deepcopy(record)
    fake["rules"]["bonus_paytable"][0]["pays"] += 20
    fake["rules_fingerprint"] = rules_sha256(fake["rules"])
    fake["record_digest"] = record_digest(fake)
    return fake


def checks_in_page(page: Any, record: dict[str, Any], published: dict[str, Any] | None
                   ) -> list[dict[str, Any]]:
    key = public_key_document(KEY.public_key())
    page.evaluate("window.__checks = undefined")
    page.add_script_tag(type="module", content=f"""
        import {{ checkSigned }} from "/js/signature.js";
        window.__checks = await checkSigned({json.dumps(record)}, {json.dumps(key)}, {json.dumps(published)});
    """)
    page.wait_for_function("window.__checks !== undefined")
    result: list[dict[str, Any]] = page.evaluate("window.__checks")
    return result


def test_canonical_json_is_pythons_byte_for_byte(page: Any) -> None:
    record = signed_record()
    page.add_script_tag(type="module", content=f"""
        import {{ canonicalJson }} from "/js/signature.js";
        window.__canonical = [canonicalJson({json.dumps(AWKWARD)}), canonicalJson({json.dumps(record)})];
    """)
    page.wait_for_function("window.__canonical !== undefined")
    assert page.evaluate("window.__canonical") == [canonical_json(AWKWARD), canonical_json(record)]


def test_chromium_checks_the_servers_ed25519_signature_and_the_published_rules(page: Any) -> None:
    record = signed_record()
    published = {"fingerprint": record["rules_fingerprint"], "document": record["rules"]}
    genuine = checks_in_page(page, record, published)
    assert [c["subject"] for c in genuine] == ["record digest", "signature", "rules fingerprint",
                                               "published rules"]
    assert all(c["ok"] for c in genuine), genuine

    fake = checks_in_page(page, forged(record), published)
    failed = {c["subject"]: c["key"] for c in fake if not c["ok"]}
    assert set(failed) == {"signature", "published rules"}, fake
    assert failed["signature"] == "fair.check.signature_bad"  # "does not match this content"

    other_key = sign_record(forged(record), Ed25519PrivateKey.generate())
    failed = {c["subject"] for c in checks_in_page(page, other_key, published) if not c["ok"]}
    assert failed == {"signature", "published rules"}


def test_the_verify_button_fails_a_forged_paytable(page: Any) -> None:
    record = signed_record()
    key = public_key_document(KEY.public_key())
    published = {"document": record["rules"]}
    for name, shown, verified in (("r-genuine", record, True), ("r-forged", forged(record), False)):
        view = {**shown, "id": name}
        page.evaluate("document.querySelector('#app').replaceChildren()")
        page.add_script_tag(type="module", content=f"""
            import {{ fairnessCheck }} from "/js/verify.js";
            import {{ useLanguage }} from "/js/i18n.js";
            await useLanguage("en");
            const signed = async () => ({{ record: {json.dumps(shown)}, key: {json.dumps(key)},
                                           published: {json.dumps(published)} }});
            document.querySelector("#app").append(fairnessCheck({json.dumps(view)}, {{ signed }}));
        """)
        page.locator(f"[data-verify='{name}']").click()
        selector = f"[data-verify-result='{name}']"
        page.wait_for_function(f'document.querySelector("{selector}").dataset.ok !== undefined')
        result = page.locator(selector)
        assert (result.get_attribute("data-ok") == "true") is verified, result.inner_text()
        signature = "✔ signature: signed by the server's key" if verified else \
            "✘ signature: the signature does not match this content under the server's key"
        assert signature in result.inner_text()
