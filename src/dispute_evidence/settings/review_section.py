"""`[review]` of the configuration (settings/model.py): approve before it goes out."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from dispute_evidence.policies import Hold, ReviewPolicy
from dispute_evidence.settings.bounds import MAX_AMOUNT


class ReviewSection(BaseModel):
    """`[review]`: what waits for a person's approval before it is sent, and the sweep."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)  # as every section

    hold: Hold = Field(
        "none",
        description="Hold evidence for a person's approval before it is sent: 'none' (send as "
        "soon as it is built), 'incomplete' (hold disputes whose evidence misses what their "
        "reason needs), 'all' (hold every dispute). Env DISPUTE_EVIDENCE_REVIEW__HOLD.",
    )
    send_before_deadline_hours: float | None = Field(
        None,
        gt=0,
        le=8760,
        description="Deadline sweep: held, complete evidence nobody approved is sent this many "
        "hours before its deadline (never after it). Unset: held evidence waits for a person.",
    )

    approvers: list[str] = Field(
        default_factory=list,
        description="User names who may approve (the OS user for `approve`, a dropped sheet's "
        "file owner, 'flow run <name>' for the Prefect UI). Empty: anyone who can run `approve` "
        "or write to the inbox. An approval from anyone else is kept but not applied.",
    )
    second_approver_over: float | None = Field(
        None,
        ge=0,
        le=MAX_AMOUNT,
        description="Above this disputed amount, two different approvers must approve the same "
        "evidence version before it is sent (an unknown amount counts as above).",
    )

    hold_without_claim: bool = Field(
        True,
        description="Hold a dispute whose rebuttal letter would make no claim (nothing in your "
        "data answers its reason) as 'advice: accept' until a person approves sending it. "
        "false: send it anyway.",
    )

    def policy(self) -> ReviewPolicy:
        return ReviewPolicy(
            hold=self.hold,
            sweep_hours=self.send_before_deadline_hours,
            approvers=tuple(self.approvers),
            second_approver_over=self.second_approver_over,
            hold_no_claim=self.hold_without_claim,
        )
