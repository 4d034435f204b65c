"""What one build or report keeps for the next: each fraud dispute's CE 3.0 verdict, the API's
own view of each dispute, the evidence kinds of each payload, the last report's picture, and
the review policy the state holds. Each a table of its own (v13; `meta` held them as JSON)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, NamedTuple

from sqlalchemy import Table, select
from sqlalchemy.engine import Connection

from dispute_evidence.state.base import Part
from dispute_evidence.state.schema import (
    api_views,
    ce3_verdicts,
    evidence_kinds,
    letter_points,
    meta,
    picture_disputes,
    picture_problems,
    review_policy,
)

PICTURE_TAKEN = "picture_taken"  # meta: when the last report's picture was kept
STATE = "state"  # the review policy's one row


class KeptVerdict(NamedTuple):
    """A fraud dispute's CE 3.0 verdict as the last build gave it."""

    text: str
    qualifies: bool
    with_ip_or_device: bool


class KeptView(NamedTuple):
    """The API's own view of a dispute, the payload it was compared with (its tag), and how
    they differ ('' when they agree)."""

    reason: str
    amount: float | None
    currency: str
    opened_on: str
    payload_tag: str
    mismatch: str


class KeptKinds(NamedTuple):
    """Which evidence kinds a payload shows ('yny'), and which payload (its tag) that was."""

    payload_tag: str
    kinds: str


class KeptPicture(NamedTuple):
    """What the last report showed: each dispute's line and each problem's."""

    disputes: dict[str, str]
    problems: frozenset[str]


class KeptPolicyRow(NamedTuple):
    """The review policy a state holds: its hold, sweep, since when and set by what."""

    hold: str
    sweep_hours: float | None
    since: str
    by: str


class Kept(Part):
    """What a build or a report keeps in the state for the next one."""

    def ce3_verdicts(self) -> dict[str, KeptVerdict]:
        with self.engine.connect() as c:
            rows = c.execute(select(ce3_verdicts).order_by(ce3_verdicts.c.provider_dispute_id))
            return {
                r.provider_dispute_id: KeptVerdict(
                    r.verdict, bool(r.qualifies), bool(r.with_ip_or_device)
                )
                for r in rows
            }

    def keep_ce3_verdicts(
        self, verdicts: Mapping[str, KeptVerdict], within: Collection[str] | None = None
    ) -> None:
        """This build's verdicts, replacing the last build's: all of them, or (`within`: the
        disputes a build rebuilt) those of these disputes only."""
        rows = [
            {
                "provider_dispute_id": pid,
                "verdict": v.text,
                "qualifies": int(v.qualifies),
                "with_ip_or_device": int(v.with_ip_or_device),
            }
            for pid, v in verdicts.items()
        ]
        with self.engine.begin() as c:
            if within is None:
                c.execute(ce3_verdicts.delete())
            else:
                _delete(c, ce3_verdicts, sorted(set(within) | set(verdicts)))
            if rows:
                c.execute(ce3_verdicts.insert(), rows)

    def api_views(
        self, within: Collection[str] | None = None, *, mismatched: bool = False
    ) -> dict[str, KeptView]:
        """The kept views: all, or those of the disputes `within` (a run compares a few, not
        the history); `mismatched`: only those that differ from the disputes list."""
        q = select(api_views).order_by(api_views.c.provider_dispute_id)
        if mismatched:
            q = q.where(api_views.c.mismatch.is_not(None), api_views.c.mismatch != "")
        if within is None:
            return self._views(q)
        pids, found = sorted(set(within)), dict[str, KeptView]()
        for start in range(0, len(pids), 500):  # a database bounds a statement's values
            found |= self._views(
                q.where(api_views.c.provider_dispute_id.in_(pids[start : start + 500]))
            )
        return found

    def _views(self, q: Any) -> dict[str, KeptView]:
        with self.engine.connect() as c:
            return {
                r.provider_dispute_id: KeptView(
                    r.reason or "",
                    r.amount,
                    r.currency or "",
                    r.opened_on or "",
                    r.payload_tag or "",
                    r.mismatch or "",
                )
                for r in c.execute(q)
            }

    def keep_api_views(self, views: Mapping[str, KeptView]) -> None:
        """The API's view of these disputes (each replaces the one kept before)."""
        with self.engine.begin() as c:
            _replace(
                c,
                api_views,
                [{"provider_dispute_id": pid, **v._asdict()} for pid, v in views.items()],
            )

    def evidence_kinds(self) -> dict[str, KeptKinds]:
        with self.engine.connect() as c:
            rows = c.execute(select(evidence_kinds))
            return {r.provider_dispute_id: KeptKinds(r.payload_tag, r.kinds) for r in rows}

    def keep_evidence_kinds(self, kinds: Mapping[str, KeptKinds]) -> None:
        with self.engine.begin() as c:
            _replace(
                c,
                evidence_kinds,
                [{"provider_dispute_id": pid, **k._asdict()} for pid, k in kinds.items()],
            )

    def letter_points(self) -> dict[str, KeptKinds]:
        """Each dispute's letter points as last worked out (engine/reporting/wins.py), and for what."""
        with self.engine.connect() as c:
            rows = c.execute(select(letter_points))
            return {r.provider_dispute_id: KeptKinds(r.payload_tag, r.points) for r in rows}

    def keep_letter_points(self, points: Mapping[str, KeptKinds]) -> None:
        with self.engine.begin() as c:
            _replace(
                c,
                letter_points,
                [
                    {"provider_dispute_id": pid, "payload_tag": k.payload_tag, "points": k.kinds}
                    for pid, k in points.items()
                ],
            )

    def last_picture(self) -> KeptPicture | None:
        """What the last report showed (None: no report kept one yet)."""
        with self.engine.connect() as c:
            if c.execute(select(meta.c.value).where(meta.c.key == PICTURE_TAKEN)).first() is None:
                return None
            lines = c.execute(
                select(picture_disputes.c.provider_dispute_id, picture_disputes.c.shown)
            )
            problems = c.execute(select(picture_problems.c.problem)).scalars()
            return KeptPicture(dict(lines.tuples().all()), frozenset(problems))

    def keep_picture(self, picture: KeptPicture, taken: str) -> None:
        """This report's picture, replacing the last one."""
        with self.engine.begin() as c:
            c.execute(picture_disputes.delete())
            c.execute(picture_problems.delete())
            if picture.disputes:
                c.execute(
                    picture_disputes.insert(),
                    [{"provider_dispute_id": p, "shown": s} for p, s in picture.disputes.items()],
                )
            if picture.problems:
                c.execute(
                    picture_problems.insert(), [{"problem": p} for p in sorted(picture.problems)]
                )
            c.execute(meta.delete().where(meta.c.key == PICTURE_TAKEN))
            c.execute(meta.insert().values(key=PICTURE_TAKEN, value=taken))

    def kept_review_policy(self) -> KeptPolicyRow | None:
        with self.engine.connect() as c:
            row = c.execute(select(review_policy).where(review_policy.c.name == STATE)).first()
        if row is None:
            return None
        return KeptPolicyRow(row.hold, row.sweep_hours, row.since, row.set_by)

    def keep_review_policy(self, policy: KeptPolicyRow) -> None:
        with self.engine.begin() as c:
            c.execute(review_policy.delete().where(review_policy.c.name == STATE))
            c.execute(
                review_policy.insert().values(
                    name=STATE,
                    hold=policy.hold,
                    sweep_hours=policy.sweep_hours,
                    since=policy.since,
                    set_by=policy.by,
                )
            )


def _replace(c: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Each of `rows` in `table`, in place of the row of its dispute kept before."""
    if not rows:
        return
    _delete(c, table, [r["provider_dispute_id"] for r in rows])
    c.execute(table.insert(), rows)


def _delete(c: Connection, table: Table, pids: list[str]) -> None:
    """The rows of these disputes, gone (in chunks: a database bounds a statement's values)."""
    for start in range(0, len(pids), 500):
        c.execute(table.delete().where(table.c.provider_dispute_id.in_(pids[start : start + 500])))
