"""The wire payload is derived from the typed facts (issue 36): for the sample data, a CE 3.0
scenario and an inbox that fills every fact, the bytes sent are those the builder sent before
the facts were typed (fixtures/wire_before.json, recorded from commit 33e018b; its CE 3.0
entry from the branch that added each order's values to the CE 3.0 evidence, before the merge
with the typed facts: issue 36, finding 9; since issue 44 item 9 the orders export's checkout
device and IP go out with the order's fields, `device_id` in that entry the only change)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.wire_samples import wire_bodies

BEFORE = Path(__file__).parent / "fixtures" / "wire_before.json"


def test_the_wire_payload_is_byte_for_byte_what_it_was(tmp_path):
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    now = wire_bodies(tmp_path)
    assert set(now) == set(before)
    for inbox, bodies in before.items():
        assert now[inbox] == bodies, inbox
