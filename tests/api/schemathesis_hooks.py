"""Schemathesis hooks (loaded through SCHEMATHESIS_HOOKS by test_schemathesis.py): the two request rules JSON Schema
cannot say, so the fuzzer does not send them as "valid" requests and call their 422 a rejection of valid data.

- A date range in order: `date_from` ≤ `date_to` (`/search`, `/ask`, `/ask/stream` filters; `GET /documents`).
- A highlight span in order: START ≤ END (`GET /documents/{doc_id}/pages/{n}.png?highlight=START-END`).

Both are documented 422s of the API; every other generated request goes through, under every check.
"""

from __future__ import annotations

import re

import schemathesis

_SPAN = re.compile(r"^(\d+)-(\d+)$")


def _dates_in_order(container) -> bool:
    if not isinstance(container, dict):
        return True
    start, end = container.get("date_from"), container.get("date_to")
    return not (isinstance(start, str) and isinstance(end, str) and start > end)


@schemathesis.hook
def filter_case(context, case) -> bool:
    query = case.query if isinstance(case.query, dict) else {}
    span = _SPAN.match(str(query.get("highlight", "")))
    if span and int(span.group(1)) > int(span.group(2)):
        return False
    body = case.body if isinstance(case.body, dict) else {}
    return _dates_in_order(query) and _dates_in_order(body.get("filters"))
