"""The states a dispute and an evidence file move through, and the moves allowed (dlt style).

    (DISPUTE_MOVES and FILE_MOVES below are the tables; every write of a status takes its
    from-set from them, in state/transitions.py only.)
    Dispute:  (new) -> pending | incomplete
              pending -> submitted | rejected | not_found | past_due
              submitted -> submitted            (files sent later, evidence re-sent)
              incomplete -> past_due            (the data never arrived in time)
              any -> pending                    (its payload changed: see StateStore.sync_disputes)
              pending | rejected | not_found | awaiting_approval -> incomplete
                                                (held: its order would go out wrong, e.g. a row
                                                 of it was not used; see StateStore._hold)
              any but not_found -> closed       (the API says it ended: won, lost, ...; final)
              pending | submitted -> awaiting_approval   (held for a person: [review] hold)
              awaiting_approval -> pending | submitted   (approved, or no longer held: back to
                                                          where it was, by its sent payload)
              awaiting_approval -> past_due     (nobody approved it before its deadline)
    File:     (new) -> pending | sending        ('sending' when a replaced state reconciles)
              pending | sending -> sending      (written before the request leaves)
              sending -> uploaded | rejected | pending
              pending <-> in_packet             ([evidence] upload = "packet": the document goes
                                                 inside the dispute's packet, not on its own)
    Another API (SWITCH_*_MOVES, only StateStore.use_api): what another API holds counts as
    not sent at this one:
              submitted | rejected | not_found | closed -> pending      (dispute)
              pending | sending | uploaded | rejected -> sending       (file: listed first)

A new status is added here, in its enum and its moves. state/transitions.py is the only
writer of a status (tests/unit/test_status_writes.py): each of its writes takes its from-set from
these tables, so a move they do not draw cannot be written (IllegalTransition, or a bulk
UPDATE whose WHERE admits only the allowed from-states).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TypeVar

from dispute_evidence.errors import DisputeEvidenceError

S = TypeVar("S", bound=str)


class DisputeStatus(StrEnum):
    PENDING = "pending"
    SUBMITTED = "submitted"
    INCOMPLETE = "incomplete"
    PAST_DUE = "past_due"
    REJECTED = "rejected"
    NOT_FOUND = "not_found"
    CLOSED = "closed"  # ended at the API (read back): nothing more is ever sent
    AWAITING_APPROVAL = "awaiting_approval"  # held for a person's approval: nothing is sent


class FileStatus(StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    UPLOADED = "uploaded"
    REJECTED = "rejected"
    IN_PACKET = "in_packet"  # goes inside the dispute's packet (upload = "packet"), not alone


D, F = DisputeStatus, FileStatus

# to-state: the states it may be reached from; every write of a status checks it (the named
# transitions, the build's sync and holds, the deadline expiries)
DISPUTE_MOVES: dict[DisputeStatus, frozenset[DisputeStatus]] = {
    D.PENDING: frozenset(  # its payload changed (StateStore.sync_disputes), or approved
        {
            D.PENDING,
            D.SUBMITTED,
            D.INCOMPLETE,
            D.PAST_DUE,
            D.REJECTED,
            D.NOT_FOUND,
            D.AWAITING_APPROVAL,
        }
    ),
    D.INCOMPLETE: frozenset(  # held: its order would go out wrong (StateStore._hold)
        {D.PENDING, D.INCOMPLETE, D.REJECTED, D.NOT_FOUND, D.AWAITING_APPROVAL}
    ),
    D.SUBMITTED: frozenset({D.PENDING, D.SUBMITTED}),
    D.REJECTED: frozenset({D.PENDING}),
    D.NOT_FOUND: frozenset({D.PENDING}),
    D.PAST_DUE: frozenset({D.PENDING, D.INCOMPLETE, D.AWAITING_APPROVAL}),
    D.CLOSED: frozenset(
        {D.PENDING, D.SUBMITTED, D.INCOMPLETE, D.PAST_DUE, D.REJECTED, D.AWAITING_APPROVAL}
    ),
    D.AWAITING_APPROVAL: frozenset({D.PENDING, D.SUBMITTED}),
}
# awaiting_approval -> these, only by StateStore.release_approval (never by a send)
APPROVAL_RELEASES = frozenset({D.PENDING, D.SUBMITTED})
FILE_MOVES: dict[FileStatus, frozenset[FileStatus]] = {
    F.SENDING: frozenset({F.PENDING, F.SENDING}),
    F.UPLOADED: frozenset({F.SENDING}),
    F.REJECTED: frozenset({F.SENDING}),
    F.PENDING: frozenset({F.SENDING, F.IN_PACKET}),
    F.IN_PACKET: frozenset({F.PENDING}),
}
# The status a new row starts in (the "(new) ->" above).
DISPUTE_STARTS = frozenset({D.PENDING, D.INCOMPLETE})
FILE_STARTS = frozenset({F.PENDING, F.SENDING})
# A run against another API (StateStore.use_api, state/apis.py); no other write makes these
# moves. A dispute in a status only an API gives (its evidence there, refused there, unknown
# there, ended there) has nothing at this API yet, so it is pending here: `closed` is what the
# other API said, and this one is read back afresh (and closes it again if it ended). A file
# the other API had is 'sending': looked up in this API's listing before any upload, so
# nothing lands twice. An in_packet file stays in its packet.
SWITCH_DISPUTE_MOVES: dict[DisputeStatus, frozenset[DisputeStatus]] = {
    D.PENDING: frozenset({D.SUBMITTED, D.REJECTED, D.NOT_FOUND, D.CLOSED}),
}
SWITCH_FILE_MOVES: dict[FileStatus, frozenset[FileStatus]] = {
    F.SENDING: frozenset({F.PENDING, F.SENDING, F.UPLOADED, F.REJECTED}),
}
# Disputes still open to evidence (what they lack is worth adding).
OPEN_DISPUTE = frozenset({D.PENDING, D.SUBMITTED, D.AWAITING_APPROVAL})
# Files still to send: not yet sent, or sent with no answer recorded (reconciled first).
OPEN_FILE = frozenset({F.PENDING, F.SENDING})


class IllegalTransition(DisputeEvidenceError, RuntimeError):
    """A write that the state machine does not allow: a bug, never a user error."""


def next_statuses(status: DisputeStatus) -> frozenset[DisputeStatus]:
    """Where a dispute in `status` may go (docs/architecture.md's "next" column): the moves
    table, for a held dispute the releases of an approval, and the switch to another API."""
    moves = _targets(DISPUTE_MOVES, status) | _targets(SWITCH_DISPUTE_MOVES, status)
    return moves | (APPROVAL_RELEASES if status == D.AWAITING_APPROVAL else frozenset())


def next_file_statuses(status: FileStatus) -> frozenset[FileStatus]:
    """Where a file in `status` may go: the moves table and the switch to another API."""
    return _targets(FILE_MOVES, status) | _targets(SWITCH_FILE_MOVES, status)


def _targets(moves: dict[S, frozenset[S]], status: S) -> frozenset[S]:
    return frozenset(to for to, sources in moves.items() if status in sources)
