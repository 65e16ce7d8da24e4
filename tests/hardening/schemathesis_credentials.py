"""A schemathesis hooks module (``SCHEMATHESIS_HOOKS``) that gives the requests schemathesis sends
their credentials: it signs those to ``/operator/v1/...`` as an operator would
(docs/operators.md#signatures), so those endpoints are exercised past their signature check; it
sends the requests ending a player's sessions (``/api/session/logout``, ``/api/session/revoke-all``)
with a session of their own, so the player session the other requests use lives through the run;
and, in the back-office run, it sends a staff sign-out (``DELETE /admin/api/session``) with a
staff session of its own, so the staff session the other requests use lives through it too.

A request is signed only when its ``X-Signature`` is ``DEALERPOKER_SIGN_HERE``'s value (the test
passes that header to schemathesis as the operators' credential): schemathesis's own probes that
remove the credential or put a wrong one in its place are sent as they are, and must be refused.
The signature covers the bytes as they go on the wire, so it is made at the last moment, by a
``requests`` auth hook, once the method, path with query and body are final.

The operator's id and secret come from ``DEALERPOKER_SIGNING_OPERATOR`` and
``DEALERPOKER_SIGNING_SECRET``; the staff member's name and password (back-office run only) from
``DEALERPOKER_STAFF_NAME`` and ``DEALERPOKER_STAFF_PASSWORD``. The hooks are registered only
where ``DEALERPOKER_SIGN_HERE`` is set (the schemathesis process): pytest imports this module too
(doctests), and a hook registered there would act on every schemathesis test of the suite.
"""

from __future__ import annotations

import os
from typing import Any

import requests
import schemathesis

from dealerpoker.operator_signature import OPERATOR_HEADER, SIGNATURE_HEADER, sign_request
from dealerpoker.server.backoffice.deps import COOKIE, CSRF_HEADER

SESSION_ENDING = ("/api/session/logout", "/api/session/revoke-all")
STAFF_SESSION = "/admin/api/session"


class Credentials(requests.auth.AuthBase):
    """Replaces a placeholder signature with the operator's real one over the prepared request,
    and the shared player session of a session-ending request with a new one."""

    def __call__(self, prepared: requests.PreparedRequest) -> requests.PreparedRequest:
        assert prepared.url is not None
        if prepared.path_url.startswith(SESSION_ENDING) and "Authorization" in prepared.headers:
            origin = prepared.url[:-len(prepared.path_url)]
            token = requests.post(f"{origin}/api/session", json={}, timeout=60).json()["token"]
            prepared.headers["Authorization"] = f"Bearer {token}"
        staff_sign_out = prepared.method == "DELETE" and prepared.path_url.split("?")[0] == STAFF_SESSION
        if staff_sign_out and f"{COOKIE}=" in prepared.headers.get("Cookie", "") \
                and "DEALERPOKER_STAFF_NAME" in os.environ:
            origin = prepared.url[:-len(prepared.path_url)]
            member = {"name": os.environ["DEALERPOKER_STAFF_NAME"],
                      "password": os.environ["DEALERPOKER_STAFF_PASSWORD"]}
            signed_in = requests.post(f"{origin}{STAFF_SESSION}", json=member, timeout=60)
            prepared.headers["Cookie"] = f"{COOKIE}={signed_in.cookies[COOKIE]}"
            if CSRF_HEADER in prepared.headers:
                prepared.headers[CSRF_HEADER] = signed_in.json()["csrf"]
        if prepared.headers.get(SIGNATURE_HEADER) != os.environ["DEALERPOKER_SIGN_HERE"]:
            return prepared
        body = prepared.body or b""
        raw = body.encode() if isinstance(body, str) else body
        assert prepared.method is not None
        prepared.headers[OPERATOR_HEADER] = os.environ["DEALERPOKER_SIGNING_OPERATOR"]
        prepared.headers.update(sign_request(os.environ["DEALERPOKER_SIGNING_SECRET"], prepared.method,
                                             prepared.path_url, bytes(raw)))
        return prepared


def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    kwargs["auth"] = Credentials()


def after_call(context: Any, case: Any, response: Any) -> None:
    """Each answer's operation, status and the method sent (schemathesis's probes of a method a
    path does not take are recorded under the operation probed), one a line, to
    ``DEALERPOKER_SCHEMATHESIS_ANSWERS`` (the test checks what the endpoints answered)."""
    record = os.environ.get("DEALERPOKER_SCHEMATHESIS_ANSWERS")
    if record:
        sent = getattr(getattr(response, "request", None), "method", None) or case.method
        with open(record, "a") as answers:
            answers.write(f"{case.operation.label} {response.status_code} {sent}\n")


BEYOND_THE_SCHEMA = (
    # A moment that must be in the future (a restriction's ``until``, a paytable's ``live_from``):
    # a valid date-time to JSON Schema, which has no "now" (tests/server/test_operators_restrictions.py,
    # tests/backoffice/test_paytable_change_control.py).
    "is not in the future",
    # A free-bet campaign's rules between two of its fields, which JSON Schema cannot compare
    # (tests/server/test_free_bets.py).
    "valid_until: must be after valid_from",
    "max_win: currencies without an ante",
    # A round search's stakes or days, one bound above the other; an operator's player without
    # the operator.
    "is above max_stake",
    "is not after since",
    "give the operator too",
    # A paytable draft's rules are checked as a whole, as the rules files are (``load_rules``):
    # free JSON merged over the rules in force.
    "(nothing was saved)",
    # A jurisdiction among the server's profiles, which its configuration names (these three:
    # tests/backoffice/test_schema_states_the_back_offices_choices.py).
    "jurisdictions: no profile",
)
"""What a 422 names when it refuses a request for a rule the schema cannot say."""


def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure but a schema-valid request refused (422) for a rule ``BEYOND_THE_SCHEMA``."""
    if type(failure).__name__ != "RejectedPositiveData" or response.status_code != 422:
        return True
    try:
        message = str(response.json().get("message", ""))
    except ValueError:
        return True
    return not any(rule in message for rule in BEYOND_THE_SCHEMA)


if "DEALERPOKER_SIGN_HERE" in os.environ:
    for hook in (before_call, after_call, filter_failure):
        schemathesis.hook(hook)
