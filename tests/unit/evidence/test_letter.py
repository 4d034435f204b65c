"""The rebuttal letter: per reason family, only facts the payload holds, nothing it does not
show (in transit is not delivered), the same bytes for the same facts, and no claim at all
when no fact answers the dispute."""

from __future__ import annotations

import io
from datetime import date

import pytest
from pypdf import PdfReader

from dispute_evidence.documents.facts import DocumentFacts, Message, Quote
from dispute_evidence.evidence.dispute_facts import ShipmentRow
from dispute_evidence.evidence.letter import build_letter, delivered
from dispute_evidence.evidence.summary_pdf import sources_pdf, summary_pdf
from dispute_evidence.evidence.wire import legacy_facts_from_payload as wire_facts

ORDER = {"order_number": "1041", "order_date": "2026-10-02T18:02:55Z", "order_total": 129,
         "order_currency": "USD", "customer_name": "Ann Smith", "customer_email": "ann@example.com",
         "billing_address": "12 Elm St, Boston", "shipping_address": "12 ELM ST, Boston"}  # fmt: skip
PRODUCTS = [{"product_title": "Linen shirt", "price": 49.5, "quantity": 2, "currency_code": "USD"}]
CHARGE = {"payment_id": "ch_1", "payment_amount": 129, "currency": "USD", "card_brand": "Visa",
          "card_last4": "4242", "avs_line1_check": "pass", "avs_zip_check": "fail",
          "cvc_check": "unavailable", "paid_at": "2026-10-02T18:03:11Z"}  # fmt: skip
SHIPPED = {"tracking_number": "1Z1", "carrier": "UPS", "shipped_at": "2026-10-03T13:12:40Z"}


def _payload(reason: str, code: str = "", **extra: object) -> dict[str, object]:
    dispute = {"reason": reason, "amount": 129, "currency": "USD"}
    dispute |= {"network_reason_code": code} if code else {}
    return {"products": PRODUCTS, "additional_evidence": {**ORDER, "dispute": dispute, **extra}}


def _claims(
    payload: dict[str, object], attached: list[str] | list[DocumentFacts] | None = None
) -> list[str]:
    return [s.text for s in build_letter(wire_facts(payload), attached or []).sentences]


def test_fraud_cites_only_the_checks_that_passed_and_the_network_code():
    letter = build_letter(wire_facts(_payload("fraudulent", "10.4", payments=[CHARGE])), [])
    assert letter.family == "fraud"
    assert letter.reason_line == ("The dispute (129.00 USD): the cardholder says they did not "
                                  "authorise this payment (fraud); Visa reason code 10.4.")  # fmt: skip
    claims = [s.text for s in letter.sentences]
    assert claims[0] == ("The card issuer's checks on charge ch_1 (Visa ending 4242) passed for "
                         "the billing street address.")  # fmt: skip
    # the postcode check failed: the address is never argued as a match, the failure is
    # stated as what it is (issue 44 item 9; the shared spec: AVS failures concede)
    assert not any("billing address" in c for c in claims)
    assert any("the billing postcode check fail" in s.text for s in letter.conceded)
    assert not any("postcode" in c or "CVC" in c or "Compelling" in c for c in claims)
    assert {s.source for s in letter.sentences} == {"payments", "order"}


@pytest.mark.parametrize(
    ("shipment", "claim"),
    [
        ({**SHIPPED, "delivered_at": "2026-10-06T10:00:00Z"}, "delivered on 2026-10-06"),
        ({**SHIPPED, "delivery_status": "Delivered"}, "delivered (tracking"),
        ({**SHIPPED, "delivery_status": "In transit"}, None),
        ({**SHIPPED, "delivery_status": "Undeliverable", "delivered_at": "2026-10-06"}, None),
        ({**SHIPPED, "delivery_status": "Returned to sender"}, None),
        ({**SHIPPED, "delivery_status": "Delivery attempted"}, None),
    ],
)
def test_delivered_only_when_the_data_says_so_and_nothing_contradicts_it(shipment, claim):
    claims = _claims(_payload("product_not_received", shipments=[shipment]))
    assert "The order was shipped on 2026-10-03 with UPS, tracking number 1Z1." in claims
    said = [c for c in claims if "delivered" in c]
    assert (said == []) if claim is None else (claim in said[0])
    assert (delivered(ShipmentRow(**shipment)) is None) == (claim is None)


def test_each_family_argues_from_its_own_facts():
    # a partial credit is no reason the payment stands: stated with what stays disputed
    partial = build_letter(wire_facts(_payload("credit_not_processed", refunded_amount=25)), [])
    assert not any("25.00" in s.text for s in partial.sentences), partial.sentences
    assert partial.context[-1].text == ("A credit of 25.00 USD was already issued on this order; "
                                        "this response contests the remaining 104.00 USD.")  # fmt: skip
    dup = _claims(_payload("duplicate", "12.6.1", payments=[CHARGE]))
    assert dup == ["One charge was made for this order: ch_1 (129.00 USD, 2026-10-02)."]
    sub = _claims(_payload("subscription_canceled", payments=[{**CHARGE, "description": "Box"}]),
                  ["1041 policy.pdf"])  # fmt: skip
    assert sub[:2] == [  # the renewal disputed, and no cancellation before it (issue 44, 7)
        "The disputed charge is the renewal of 2026-10-02: ch_1 (129.00 USD, 2026-10-02).",
        "Our records hold no request to cancel before the renewal of 2026-10-02.",
    ]
    assert sub[2:] == ["Charge ch_1 was described as: Box.", "The order was placed with the name Ann Smith "
                       "and the email ann@example.com as entered at checkout.", "Attached as supporting documents: 1041 policy.pdf."]  # fmt: skip
    other = build_letter(wire_facts(_payload("something_new")), [])
    assert other.family == "general" and "reason given: something_new" in other.reason_line


def test_a_renewal_is_described_by_its_own_charge_never_the_first():
    """A subscription's first charge said "renewal 1"; the letter quoted it under a dispute of
    renewal 2 (docs/letters, read as a reviewer would): only the disputed charge is described."""
    first = {**CHARGE, "payment_id": "ch_1", "description": "Box, renewal 1",
             "paid_at": "2026-09-02T18:03:11Z"}  # fmt: skip
    latest = {**CHARGE, "payment_id": "ch_2", "description": "Box, renewal 2"}
    sub = _claims(_payload("subscription_canceled", payments=[first, latest]))
    assert "Charge ch_2 was described as: Box, renewal 2." in sub, sub
    assert not any("renewal 1" in s for s in sub), sub


def test_a_dispute_with_no_supporting_facts_gets_a_letter_with_no_claims():
    bare = {"products": PRODUCTS, "additional_evidence": {"order_number": "7",
            "dispute": {"reason": "product_not_received"}}}  # fmt: skip
    letter = build_letter(wire_facts(bare), [])
    assert not letter.claims and letter.context  # the order is described, nothing is argued
    text = (
        PdfReader(io.BytesIO(summary_pdf("dp_bare", wire_facts(bare), []))).pages[0].extract_text()
    )
    assert "makes no claim" in text and "delivered" not in text


def test_same_facts_same_bytes_and_the_letter_comes_first_with_its_sources_apart():
    payload = _payload("fraudulent", payments=[CHARGE], shipments=[SHIPPED])
    sources = {"order": "orders_export_1.csv, row 2", "payments": "payments.csv, row 7"}
    first = summary_pdf("dp_1", wire_facts(payload), ["1041 proof.pdf"])
    assert first == summary_pdf("dp_1", wire_facts(payload), ["1041 proof.pdf"])
    pages = [p.extract_text() for p in PdfReader(io.BytesIO(first)).pages]
    assert pages[0].startswith("Response to dispute dp_1") and "[1]" not in pages[0]
    assert "Evidence summary: dispute dp_1" in pages[1]
    assert len(pages) <= 3 and ".csv" not in "".join(pages)  # no footnotes to our sheets
    back = sources_pdf("dp_1", wire_facts(payload), ["1041 proof.pdf"], sources)  # the packet's end
    assert back == sources_pdf("dp_1", wire_facts(payload), ["1041 proof.pdf"], sources)
    (last,) = [p.extract_text() for p in PdfReader(io.BytesIO(back or b"")).pages]
    assert "orders_export_1.csv, row 2" in last and "payments.csv, row 7" in last


def test_a_long_case_still_fits_its_pages():
    ships = [
        {**SHIPPED, "tracking_number": f"1Z{i:04d}", "delivered_at": "2026-10-06"}
        for i in range(14)
    ]
    products = [
        {**PRODUCTS[0], "product_title": f"Linen shirt {'very long name ' * 12}{i}"}
        for i in range(30)
    ]
    payload = {**_payload("fraudulent", "10.4", payments=[CHARGE] * 5, shipments=ships),
               "products": products}  # fmt: skip
    pages = [
        p.extract_text()
        for p in PdfReader(
            io.BytesIO(summary_pdf("dp_long", wire_facts(payload), ["a.pdf"] * 20))
        ).pages
    ]
    sheet = next(i for i, text in enumerate(pages) if "Evidence summary: dispute dp_long" in text)
    assert sheet <= 2  # the letter: at most 2 pages
    assert "Exhibits" in pages[-1] and len(pages) - sheet <= 2  # the data sheet ends it


def test_a_list_of_attachments_is_not_a_claim_and_argues_nothing():
    """Issue 29: "Rebuttal letter = 1 claim" when the only sentence listed an attachment, under
    "Why the payment stands" and above a request to reverse."""
    bare = {"products": PRODUCTS, "additional_evidence": {"order_number": "7",
            "dispute": {"reason": "product_not_received"}}}  # fmt: skip
    letter = build_letter(wire_facts(bare), ["7 refund receipt.pdf"])
    assert [s.source for s in letter.sentences] == ["files"]  # the attachment is still listed
    assert not letter.claims and not letter.points and not letter.request
    text = PdfReader(io.BytesIO(summary_pdf("dp_bare", wire_facts(bare), ["7 refund receipt.pdf"])))
    page = text.pages[0].extract_text()
    assert "makes no claim" in page and "7 refund receipt.pdf" in page
    assert "Why the payment stands" not in page and "reversed" not in page


def test_a_quote_that_ends_in_its_own_full_stop_or_question_mark_gets_no_second_one():
    """Seen in docs/letters: “…original packaging.”. and “…the 8.5in one?”. on the letter."""
    policy = DocumentFacts("policy.pdf", "", "policy", "text",
                           policy_clauses={"refund": Quote("Returns are accepted within 30 days.", 1)})  # fmt: skip
    email = DocumentFacts("email.pdf", "", "communication", "text", messages=(
        Message(date(2026, 10, 7), "ann@example.com", Quote("Can I swap it?", 1)),
        Message(None, None, Quote("I changed my mind", 1))))  # fmt: skip
    said = _claims(_payload("product_unacceptable"), [policy, email])
    assert "Our policy (policy.pdf, page 1) says: “Returns are accepted within 30 days.”" in said
    # says nothing to the claim (issue 36): not quoted at all
    assert not any("Can I swap it" in s for s in said), said
    assert "the customer wrote (email.pdf, page 1): “I changed my mind”." in " ".join(said)


def test_one_product_on_several_lines_is_said_once_with_its_quantities_added():
    """Issue 39 item 5: "Headphones × 2, Headphones × 3 and Headphones × 1" (the export lists a
    product once per line item) reads "Headphones × 6"; other products keep their order."""
    lines = [("Headphones", 2), ("Case", 1), ("Headphones", 3), ("Headphones", 1), ("Cable", None)]
    products = [{"product_title": t, "price": 10, "quantity": q, "currency_code": "USD"}
                for t, q in lines]  # fmt: skip
    payload = {**_payload("general"), "products": products}
    (said,) = [
        s.text for s in build_letter(wire_facts(payload), []).context if s.text.startswith("It was")
    ]
    assert said == "It was for: Headphones × 6, Case × 1 and Cable."  # no quantity: none said


def test_the_uses_counted_are_never_more_than_those_listed_without_saying_so():
    """Four uses after the purchase, three quoted: the sentence said "was used 4 times …, per the
    access log: A, B and C" as if those were all (docs/letters' licence, read as a reviewer
    would); it now says "among them"."""
    from dataclasses import replace

    from dispute_evidence.evidence.dispute_facts import Activity

    uses = tuple(Activity(f"2026-10-0{d} 10:00", event, "ann@example.com")
                 for d, event in ((2, "download"), (3, "licence activated"), (4, "login"),
                                  (5, "export project")))  # fmt: skip
    facts = replace(wire_facts(_payload("product_not_received", payments=[CHARGE])),
                    activity=uses, activity_total=4)  # fmt: skip
    said = [s.text for s in build_letter(facts, []).points if "access log" in s.text]
    assert len(said) == 1 and "was used 4 times" in said[0], said
    assert "per the access log, among them: " in said[0], said
