"""The root of the pipeline's own errors. Each carries the exit code a command ends with when
it stops on one, and its message is plain words: what is wrong and what to do, one line each
(no class names, no traceback). The CLI prints `lines()` and exits `exit_code`, in one place
(cli/_common.py `exit_on`). The API client's errors have their own root (api/errors.py), as
does the sandbox.

    DisputeEvidenceError                 exit 1   (root)
    ├── ConfigError (ValueError)         exit 2   "Configuration error: ..."  settings/
    ├── MappingError (ValueError)        exit 2   a mapping file              ingest/mappings
    ├── StateError                       exit 1   "State store problem: ..."  state/errors
    │   ├── StateDamaged, StateUnreachable, StateOfAnotherInbox
    │   ├── StateUnavailable             exit 1   the database stopped answering (same_everywhere)
    │   └── StateFull                    exit 74  "Disk full: cannot write ..." (same_everywhere)
    ├── IllegalTransition (RuntimeError) exit 1   a bug, never a user error   state/status
    ├── RunLocked                        exit 1   another run holds the inbox engine/run
    ├── RunAborted                       exit 3   the API refused the key     engine/submit
    ├── UnsafeFolder                     exit 1   a link where a folder goes  inbox
    ├── UnreadableFile                   exit 5   one input file              ingest/readers
    ├── UnreadableStatement (ValueError) exit 5   one statement file          ingest/statements
    └── PacketError                      exit 5   one document of a packet    evidence/packet

The last three stop one file or one dispute, never the run: the run goes on, and its exit
code (5: something needs a person) is what `exit_code` says of them. A second base
(ValueError, RuntimeError) stays where code catches the error by that type. A command may say
one of ours in its own words and code (`status` says a state it cannot open as a usage error,
exit 2), except a condition of the machine every command says alike (`same_everywhere`): a full
disk is exit 74 and a lost database exit 1 wherever they happen.
"""

from __future__ import annotations

from typing import ClassVar

from dispute_evidence.exits import EXIT_FAILED


class DisputeEvidenceError(Exception):
    """An error of the pipeline's own: its message says what is wrong and what to do."""

    exit_code: ClassVar[int] = EXIT_FAILED  # a command stopped by it exits with this
    heading: ClassVar[str] = ""  # said before each line of the message (e.g. "State store problem")
    same_everywhere: ClassVar[bool] = False  # no command's own words or code replace these

    def lines(self) -> list[str]:
        """What a person reads: each line of the message, after the heading if there is one."""
        text = str(self).splitlines() or [self.__doc__ or type(self).__name__]
        return [f"{self.heading}: {line}" if self.heading else line for line in text]


DISK_FULL = (
    "Disk full: {where}. Nothing was lost: what was sent is recorded, and files not yet "
    "read stay in the inbox. Free some space on that disk and run again: the same state goes on."
)  # what a full disk says, the state store's (StateFull) or a file's (cli/_common `exit_on`)
