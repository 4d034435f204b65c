"""The exit codes of `run` (and the other commands), in one place: README's table lists them."""

from __future__ import annotations

EXIT_OK = 0  # every dispute sent or skipped by a rule
EXIT_FAILED = 1  # something failed (a dispute refused, not sent); a state store problem
EXIT_USAGE = 2  # usage or configuration
EXIT_AUTH = 3  # the API refused the key: nothing was sent
EXIT_UNREACHABLE = 4  # the API could not be reached (or kept failing) before anything was sent
EXIT_NEEDS_YOU = 5  # the run did its work, and left something for a person (see the report)
EXIT_DISK_FULL = 74  # sysexits' EX_IOERR: nothing was lost
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143  # 128 + SIGINT, 128 + SIGTERM

# What `run --help` and the README's table say, one line per code (tests hold them together).
EXIT_CODES: dict[int, str] = {
    EXIT_OK: "every dispute sent or skipped by a rule; nothing needs you",
    EXIT_FAILED: "something failed (a dispute refused or not sent), or a state store problem",
    EXIT_USAGE: "usage or configuration error",
    EXIT_AUTH: "the API refused the key; nothing was sent",
    EXIT_UNREACHABLE: "the API could not be reached; nothing was sent",
    EXIT_NEEDS_YOU: "the run did its work and something needs a person (approve, fix a row...)",
    EXIT_DISK_FULL: "the disk is full; nothing was lost",
    EXIT_INTERRUPTED: "stopped by Ctrl-C",
    EXIT_TERMINATED: "stopped by SIGTERM",
}


def exit_help() -> str:
    """The exit codes as --help text, one line each (click's \\b keeps the lines)."""
    return "\b\nExit status:\n" + "\n".join(
        f"  {code:>3}  {what}" for code, what in EXIT_CODES.items()
    )
