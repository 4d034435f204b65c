"""The exit codes of `run`, `approve` (and the other commands), in one place: the README's
tables list them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

EXIT_OK = 0  # every dispute sent or skipped by a rule
EXIT_FAILED = 1  # something failed (a dispute refused, not sent); a state store problem
EXIT_USAGE = 2  # usage or configuration
EXIT_AUTH = 3  # the API refused the key: nothing was sent
EXIT_UNREACHABLE = 4  # the API could not be reached, or asked to wait longer than a run waits
EXIT_NEEDS_YOU = 5  # the run did its work, and left something for a person (see the report)
EXIT_DISK_FULL = 74  # sysexits' EX_IOERR: nothing was lost
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143  # 128 + SIGINT, 128 + SIGTERM


class Stop(StrEnum):
    """Why a run stopped sending, as the engine says it (engine/delivery/stops.py): typed, so
    the engine never picks an exit code itself; `exit_for` is the one mapping to a code."""

    KEY_REFUSED = "the API refused the key"
    UNREACHABLE = "the API could not be reached"
    WAIT_TOO_LONG = "the API asked to wait longer than a run waits"
    NOT_THE_API = "the API answered as no Dispute Evidence API would"


STOP_EXITS: dict[Stop, int] = {
    Stop.KEY_REFUSED: EXIT_AUTH,
    Stop.UNREACHABLE: EXIT_UNREACHABLE,
    Stop.WAIT_TOO_LONG: EXIT_UNREACHABLE,
    Stop.NOT_THE_API: EXIT_UNREACHABLE,
}


def exit_for(stop: Stop) -> int:
    """The exit code of a run that stopped sending for `stop` (the README's table)."""
    return STOP_EXITS[stop]


@dataclass(frozen=True)
class Stopped:
    """Why sending stopped (`stop`) and the one line that says it (`words`); for a wait asked
    past [api] max_wait, when to run again and what the API answered."""

    stop: Stop
    words: str
    retry_at: str | None = None
    answer: str = ""

    @property
    def keeps_sent(self) -> bool:
        """What was sent before the stop is counted in the run's figures (the API answered)."""
        return self.stop in (Stop.WAIT_TOO_LONG, Stop.NOT_THE_API)


# What `run --help` and the README's table say, one line per code (tests hold them together).
EXIT_CODES: dict[int, str] = {
    EXIT_OK: "every dispute sent or skipped by a rule; nothing needs you",
    EXIT_FAILED: "something failed (a dispute refused or not sent), or a state store problem",
    EXIT_USAGE: "usage or configuration error",
    EXIT_AUTH: "the API refused the key; nothing was sent",
    EXIT_UNREACHABLE: "the API could not be reached (nothing was sent), or asked to wait longer "
    "than a run waits (Retry-After: what was sent is kept)",
    EXIT_NEEDS_YOU: "the run did its work and something needs a person (approve, fix a row...)",
    EXIT_DISK_FULL: "the disk is full; nothing was lost",
    EXIT_INTERRUPTED: "stopped by Ctrl-C",
    EXIT_TERMINATED: "stopped by SIGTERM",
}


# `approve`'s (it never returns 5: what it leaves waiting, its lines say).
APPROVE_EXIT_CODES: dict[int, str] = {
    EXIT_OK: "approved, and sent; or recorded only (--no-send, no API set, or a run holding the "
    "inbox's lock sends it): each line says which",
    EXIT_FAILED: "approved, but not all sent (each line says why; the next run tries again), or "
    "the state database stopped answering",
    EXIT_USAGE: "nothing approved: an unknown dispute or nothing to approve, the review "
    "settings approvers or second_approver_over refused it (some refused: the others go on), "
    "no dispute ids, a configuration or state store problem",
    EXIT_AUTH: "the API refused the key; the approval is kept",
    EXIT_UNREACHABLE: "the API could not be reached, or asked to wait longer than a run waits "
    "(Retry-After); the approval is kept, and each line says when to run again",
    EXIT_DISK_FULL: "the disk is full; nothing was lost",
}


def exit_help(codes: dict[int, str] = EXIT_CODES) -> str:
    """The exit codes as --help text, one line each (click's \\b keeps the lines)."""
    return "\b\nExit status:\n" + "\n".join(f"  {code:>3}  {what}" for code, what in codes.items())
