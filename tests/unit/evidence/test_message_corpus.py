"""The message corpus read whole (issue 44 item 2, issue 45 item 9): accuracy per stance is
printed; a message read wrongly is sent to the analyst (uncertain), never argued or conceded
as certain."""

from __future__ import annotations

from collections import Counter
from datetime import date

from dispute_evidence.evidence.stance import Author, message_stance
from tests.unit.evidence.message_corpus import CORPUS, ME

WHO = Author(customer=(ME, "Ann Smith"), merchant=("Bright Lamps", "brightlamps.com"))
CHARGED = "2026-10-01"  # the renewal; the messages are dated before it


def _read(text: str, family: str, author: str | None):
    return message_stance(text, family, date(2026, 9, 25), CHARGED, author, WHO, "2026-09-01")


def test_the_corpus_is_large_and_covers_what_the_issue_names():
    texts = " ".join(t.lower() for t, *_ in CORPUS)
    assert len(CORPUS) >= 60
    for said in ("never mind", "but", "n't", "wrote:", "hola", "bonjour", "recieved", "oh wait"):
        assert said in texts, said
    assert sum(a != ME for *_, a in CORPUS) >= 6  # the merchant's replies
    assert {f for _, f, *_ in CORPUS} >= {
        "not_as_described",
        "not_received",
        "fraud",
        "credit_not_processed",
        "subscription_canceled",
    }


def test_no_message_is_read_wrongly_with_certainty(capsys):
    """Right: the expected stance, certain. To the analyst: not certain (never argued). Wrong
    and certain: argued or conceded against what it says, which must never happen."""
    tally: Counter[tuple[str, str]] = Counter()
    wrong = []
    for text, family, expected, author in CORPUS:
        st = _read(text, family, author)
        outcome = "analyst" if not st.certain else "right" if st.kind == expected else "wrong"
        tally[(expected, outcome)] += 1
        if outcome == "wrong":
            wrong.append((text, family, expected, st))
    with capsys.disabled():
        for stance in ("supports", "concedes", "neutral"):
            n = sum(v for (e, _), v in tally.items() if e == stance)
            right, analyst = tally[(stance, "right")], tally[(stance, "analyst")]
            print(f"\n{stance:>9}: {right}/{n} read right ({right / n:.0%}), {analyst} to the "
                  f"analyst, {tally[(stance, 'wrong')]} wrong")  # fmt: skip
    assert not wrong, wrong


def test_the_merchants_reply_is_never_the_customers_word():
    for text, family, _expected, author in CORPUS:
        if author != ME:
            st = _read(text, family, author)
            assert st.merchant and st.kind == "neutral", (text, st)
