"""The exit codes of `run` (and the other commands), in one place: README's table lists them."""

from __future__ import annotations

EXIT_OK = 0  # every dispute sent or skipped by a rule
EXIT_FAILED = 1  # something failed or needs a person; a state store problem
EXIT_USAGE = 2  # usage or configuration
EXIT_AUTH = 3  # the API refused the key: nothing was sent
EXIT_UNREACHABLE = 4  # the API could not be reached (or kept failing) before anything was sent
EXIT_DISK_FULL = 74  # sysexits' EX_IOERR: nothing was lost
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143  # 128 + SIGINT, 128 + SIGTERM
