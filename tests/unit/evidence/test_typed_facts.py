"""The typed facts (issue 36): the builder emits them beside the payload; the state keeps them
as JSON and validates them back; the payload is derived from them; and the one legacy path
reads a payload stored without them (a state from before v19) to the very same facts."""

from __future__ import annotations

import orjson
import pytest
from pydantic import ValidationError

from dispute_evidence.evidence.builder import canonical_json
from dispute_evidence.evidence.case_build import build_case
from dispute_evidence.evidence.dispute_facts import DisputeFacts, OrderFacts, dump_facts, load_facts
from dispute_evidence.evidence.wire import (
    legacy_facts_from_payload,
    stored_facts,
    wire_payload,
)
from tests.support.wire_samples import built


@pytest.fixture(scope="module")
def payloads(tmp_path_factory):
    results = built(tmp_path_factory.mktemp("samples"))
    return [p for result in results.values() for p in result.payloads]


def test_the_kept_facts_give_back_the_payload_sent(payloads):
    for p in payloads:
        facts = load_facts(p.facts_json)  # as a later run reads them from the state
        assert isinstance(facts, DisputeFacts) and facts.order.order_number == p.order_number
        assert dump_facts(facts) == p.facts_json
        assert canonical_json(wire_payload(facts)) == p.body, p.provider_dispute_id


def test_the_legacy_path_reads_an_old_payload_to_the_same_facts_and_case(payloads):
    for p in payloads:
        old = legacy_facts_from_payload(orjson.loads(p.body))  # a state before v19: no facts
        assert old == p.facts, p.provider_dispute_id
        assert stored_facts(None, p.body) == stored_facts(p.facts_json, p.body)
        assert build_case(old) == build_case(p.facts)


def test_the_samples_carry_every_kind_of_fact(payloads):
    """The fixtures are not vacuous: every part of the facts is filled somewhere."""
    for part in ("shipments", "charges", "refunds", "statement", "as_sold", "ce3_priors",
                 "merchant"):  # fmt: skip
        assert any(getattr(p.facts, part) for p in payloads), part


def test_kept_facts_of_the_wrong_shape_are_refused_not_guessed():
    good = dump_facts(DisputeFacts(OrderFacts("1")))
    assert load_facts(good) == DisputeFacts(OrderFacts("1"))
    with pytest.raises(ValidationError):
        load_facts(b'{"order": {"order_total": "a lot"}}')


def test_a_hand_written_payload_is_read_leniently():
    odd = {"products": [{"quantity": None}, "junk"], "shipping_tracking_numbers": ["1Z"],
           "additional_evidence": {"order_number": 7, "order_total": "12.5",
                                   "payments": [{"payment_id": "ch_1", "payment_amount": "x"}],
                                   "merchant_statement": "not a mapping"},
           "merchant_profile": {"merchant_name": "Acme"}}  # fmt: skip
    facts = legacy_facts_from_payload(odd)
    assert facts.order.order_number == "7" and facts.order.order_total == 12.5
    assert len(facts.products) == 1 and facts.products[0].quantity is None
    assert facts.charges[0].payment_amount is None and facts.statement is None
    assert facts.merchant is not None and facts.merchant.merchant_name == "Acme"
    assert facts.tracking_numbers == ("1Z",)
