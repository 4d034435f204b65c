"""The states a dispute and an evidence file move through, and the moves allowed (dlt style).

    Dispute:  (new) -> pending | incomplete
              pending -> submitted | rejected | not_found | past_due
              submitted -> submitted            (files sent later, evidence re-sent)
              incomplete -> past_due            (the data never arrived in time)
              any -> pending                    (its payload changed: see StateStore.sync_disputes)
              pending | rejected | not_found -> incomplete
                                                (held: its order would go out wrong, e.g. a row
                                                 of it was not used; see StateStore._hold)
              any but not_found -> closed       (the API says it ended: won, lost, ...; final)
    File:     (new) -> pending | sending        ('sending' when a replaced state reconciles)
              pending | sending -> sending      (written before the request leaves)
              sending -> uploaded | rejected | pending

A new status is added here, in its enum and its moves; the store's named transitions refuse
any other move loudly (IllegalTransition), so a wrong write fails in tests, not in reports.
"""

from __future__ import annotations

from enum import StrEnum


class DisputeStatus(StrEnum):
    PENDING = "pending"
    SUBMITTED = "submitted"
    INCOMPLETE = "incomplete"
    PAST_DUE = "past_due"
    REJECTED = "rejected"
    NOT_FOUND = "not_found"
    CLOSED = "closed"  # ended at the API (read back): nothing more is ever sent


class FileStatus(StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    UPLOADED = "uploaded"
    REJECTED = "rejected"


D, F = DisputeStatus, FileStatus

# to-state: the states it may be reached from, by a named transition of the store
DISPUTE_MOVES: dict[DisputeStatus, frozenset[DisputeStatus]] = {
    D.SUBMITTED: frozenset({D.PENDING, D.SUBMITTED}),
    D.REJECTED: frozenset({D.PENDING}),
    D.NOT_FOUND: frozenset({D.PENDING}),
    D.PAST_DUE: frozenset({D.PENDING, D.INCOMPLETE}),
    D.CLOSED: frozenset({D.PENDING, D.SUBMITTED, D.INCOMPLETE, D.PAST_DUE, D.REJECTED}),
}
FILE_MOVES: dict[FileStatus, frozenset[FileStatus]] = {
    F.SENDING: frozenset({F.PENDING, F.SENDING}),
    F.UPLOADED: frozenset({F.SENDING}),
    F.REJECTED: frozenset({F.SENDING}),
    F.PENDING: frozenset({F.SENDING}),
}
# Files still to send: not yet sent, or sent with no answer recorded (reconciled first).
OPEN_FILE = frozenset({F.PENDING, F.SENDING})


class IllegalTransition(RuntimeError):
    """A write that the state machine does not allow: a bug, never a user error."""
