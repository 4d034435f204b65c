"""Policy clauses (issue 37 item 2): the clause that answers the dispute's reason is quoted
with its page (the refund window, the cancellation cutoff, what is not a defect); a heading, a
"Last updated" line or boilerplate never is."""

from __future__ import annotations

from datetime import date

import pytest

from dispute_evidence.documents import doctext
from dispute_evidence.documents.facts import DocumentFacts
from dispute_evidence.documents.reading import facts_from_dict, facts_to_dict
from dispute_evidence.evidence.letter import build_letter
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts

# As a small merchant's policy PDF reads (issue 37): the title and its date on one line
POLICY = [
    "Acme Boards",
    "- Returns, Refunds & Cancellation Policy Last updated: 1 October 2025.",
    "We want you to love your purchase.",
    "Items may be returned within 30 days of delivery for a full refund,",
    "unused and in their original packaging.",
    "Colour may vary slightly from product photos due to screen settings; this is not a defect.",
    "Coffee subscriptions can be cancelled any time before the next billing date.",
    "If you have any questions about this policy, contact us at help@acme.example.",
]
REFUND = ("Items may be returned within 30 days of delivery for a full refund, unused and in "
          "their original packaging.")  # fmt: skip
DEFECT = (
    "Colour may vary slightly from product photos due to screen settings; this is not a defect."
)
CANCEL = "Coffee subscriptions can be cancelled any time before the next billing date."


def _read(lines: list[str], page_before: bool = False) -> DocumentFacts:
    texts = [*(["Acme Boards"] if page_before else []), "\n".join(lines)]
    return doctext.facts(DocumentFacts("refund policy.pdf", "", "policy", "text"), texts)


def test_the_title_and_its_last_updated_line_are_never_the_quote():
    facts = _read(POLICY)
    assert facts.policy_clause is not None
    assert facts.policy_clause.text == REFUND  # was "- Returns, Refunds & Cancellation Policy…"
    quoted = [facts.policy_clause.text, *(q.text for q in facts.policy_clauses.values())]
    assert not any("Last updated" in q or "Policy" in q or "contact us" in q for q in quoted)
    assert facts.effective == date(2025, 10, 1)


def test_a_clause_per_topic_with_its_page():
    facts = _read(POLICY, page_before=True)
    got = {topic: (q.text, q.page) for topic, q in facts.policy_clauses.items()}
    # a refund clause that sets a window is named by what it answers: a late return
    assert got == {"return_window": (REFUND, 2), "cancellation": (CANCEL, 2), "defect": (DEFECT, 2)}
    assert facts_from_dict(facts_to_dict(facts)) == facts  # kept and read back whole


@pytest.mark.parametrize(
    ("reason", "clause"),
    [("product_unacceptable", DEFECT), ("credit_not_processed", REFUND),
     ("subscription_canceled", CANCEL)],
)  # fmt: skip
def test_the_letter_quotes_the_clause_that_answers_the_reason(reason, clause):
    payload = {"additional_evidence": {"order_number": "1036", "dispute": {"reason": reason}}}
    said = " ".join(s.text for s in build_letter(wire_facts(payload), [_read(POLICY)]).sentences)
    assert f"Our policy (refund policy.pdf, page 1) says: “{clause}”" in said, said


# Issue 44, item 6: the clause that fits, its number whole, never a clause about something else
NUMBERED = [
    "Acme Outfitters returns policy",
    "Sale items marked final sale cannot be returned or exchanged.",
    "4 Returns",
    "4.1 Items must be unused and in their original packaging.",
    "4.2 Returns are accepted within 30 days of delivery for a full refund.",
    "4.3 Footwear returned worn cannot be refunded or exchanged.",
]
SUBSCRIPTION_ONLY = ["Acme Box subscription terms",
                     "Subscriptions renew each month unless cancelled before the billing date."]  # fmt: skip


def _said(reason: str, docs: list[DocumentFacts]) -> str:
    payload = {"additional_evidence": {"order_number": "1036", "dispute": {"reason": reason}}}
    return " ".join(s.text for s in build_letter(wire_facts(payload), docs).sentences)


def test_a_late_return_quotes_the_return_window_with_its_whole_number_not_final_sale():
    said = _said("credit_not_processed", [_read(NUMBERED, page_before=True)])
    assert ("Our policy (refund policy.pdf, page 2), clause 4.2, says: “Returns are accepted "
            "within 30 days of delivery for a full refund.”") in said, said  # fmt: skip
    assert "final sale" not in said


def test_a_clause_number_is_never_cut():
    texts = [q.text for q in _read(NUMBERED).policy_clauses.values()]
    assert any(t.startswith("4.3 Footwear returned worn") for t in texts), texts
    assert not any(t.startswith(("3 Footwear", "2 Returns")) for t in texts), texts


@pytest.mark.parametrize("reason", ["product_unacceptable", "product_not_received", "general",
                                    "credit_not_processed", "fraudulent", "duplicate"])  # fmt: skip
def test_a_subscription_clause_is_quoted_only_in_a_subscription_letter(reason):
    said = _said(reason, [_read(SUBSCRIPTION_ONLY)])
    assert "Subscriptions renew" not in said, said
    assert "Subscriptions renew" in _said("subscription_canceled", [_read(SUBSCRIPTION_ONLY)])


def test_a_parcel_never_delivered_gets_no_return_window():
    said = _said("product_not_received", [_read(NUMBERED)])
    assert "Returns are accepted" not in said and "Our policy" not in said, said
