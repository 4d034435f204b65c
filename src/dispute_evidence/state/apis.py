"""Which API holds what: each dispute's evidence and each file records the API it was sent to
(`sent_to`: the API's address and a short fingerprint of its key, never the key). A run
against another API (the real one after a `--sandbox` trial, a new key) counts nothing as
sent there: every dispute's evidence goes again (a full-state upsert, harmless) and each
file is checked against that API's listing before it is uploaded, so nothing lands twice."""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import and_, or_, select

from dispute_evidence.state.base import Part, now_iso
from dispute_evidence.state.lifecycle import SWITCH_DISPUTE_MOVES, SWITCH_FILE_MOVES
from dispute_evidence.state.lifecycle import DisputeStatus as D
from dispute_evidence.state.lifecycle import FileStatus as F
from dispute_evidence.state.schema import disputes, evidence_files, meta
from dispute_evidence.state.transitions import move_disputes, move_files

API_KEY = "api"  # meta: the API the state's record of what was sent refers to
UNKNOWN = "(an API this state did not record)"
# statuses only an API gives: at another API the dispute is simply not sent yet (pending)
API_STATUSES = tuple(sorted(SWITCH_DISPUTE_MOVES[D.PENDING]))
SENT_FILES = (F.SENDING, F.UPLOADED, F.REJECTED)


def api_identity(base_url: str, token: str) -> str:
    """The API's address and a fingerprint of its key (10 hex digits of its sha256): enough to
    tell two keys apart, useless for calling the API."""
    fingerprint = hashlib.sha256(token.encode()).hexdigest()[:10]
    return f"{base_url.rstrip('/')} key:{fingerprint}"


def sandbox_identity(where: str) -> str:
    """The inbox's own local API (`run --sandbox`), named by where it keeps its state."""
    return f"sandbox {where}"


class ApiLedger(Part):
    """The API this store is working with, and what counts as sent there."""

    def recorded_api(self) -> str | None:
        return self.get_meta(API_KEY)

    def use_api(self, identity: str, *, adopt_unrecorded: bool = True) -> int:
        """Work with the API `identity` from now on; returns how many disputes and files were
        sent to another API and so count as not sent here (0 when it is the same API).

        Rows sent before the API was recorded (a state from before v7, or a write without an
        API) belong to the recorded API; with none recorded, to this one when
        `adopt_unrecorded`, else to an unknown one (then they are sent again, files checked
        against the API's listing first)."""
        self.api_identity = identity
        with self.engine.begin() as c:
            before = c.execute(select(meta.c.value).where(meta.c.key == API_KEY)).scalar()
            owner = before or (identity if adopt_unrecorded else UNKNOWN)
            self._attribute_unrecorded(c, owner)
            moved = self._reset_elsewhere(c, identity)
            if before != identity:
                c.execute(meta.delete().where(meta.c.key.in_([API_KEY, "built_seq"])))
                c.execute(meta.insert().values(key=API_KEY, value=identity))
                if before is not None:  # read from another API: read again from this one
                    c.execute(
                        disputes.update().values(
                            api_status=None, api_status_at=None, api_read_at=None, api_due_by=None
                        )
                    )
        return moved

    @staticmethod
    def _attribute_unrecorded(c: Any, owner: str) -> None:
        sent = or_(
            disputes.c.submitted_hash.is_not(None),
            disputes.c.dispute_id.is_not(None),
            disputes.c.status.in_(API_STATUSES),
        )
        c.execute(disputes.update().where(disputes.c.sent_to.is_(None), sent).values(sent_to=owner))
        c.execute(
            evidence_files.update()
            .where(evidence_files.c.sent_to.is_(None), evidence_files.c.status.in_(SENT_FILES))
            .values(sent_to=owner)
        )

    @staticmethod
    def _reset_elsewhere(c: Any, identity: str) -> int:
        """Disputes and files sent to another API: not sent here (state/lifecycle.py's switch
        moves: a dispute in a status only an API gives is pending; a file is 'sending',
        checked against this API's listing before any upload). The rest (an incomplete or
        held dispute, a file in its packet) keep their status and lose the other API's ids."""
        stamp = now_iso()
        elsewhere = and_(disputes.c.sent_to.is_not(None), disputes.c.sent_to != identity)
        cleared: dict[str, Any] = dict(
            submitted_hash=None,
            dispute_id=None,
            sent_to=None,
            attempts=0,
            last_error=None,
            updated_at=stamp,
        )
        moved = move_disputes(
            c, D.PENDING, elsewhere, moves=SWITCH_DISPUTE_MOVES, detail=None, **cleared
        )
        moved += c.execute(disputes.update().where(elsewhere).values(**cleared)).rowcount
        files = and_(evidence_files.c.sent_to.is_not(None), evidence_files.c.sent_to != identity)
        gone: dict[str, Any] = dict(
            remote_file_id=None, sent_to=None, last_error=None, updated_at=stamp
        )
        moved += move_files(c, F.SENDING, files, moves=SWITCH_FILE_MOVES, **gone)
        moved += c.execute(evidence_files.update().where(files).values(**gone)).rowcount
        return int(moved)
