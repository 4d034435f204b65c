"""The `dispute-evidence` Typer app: its group, global options and shared option help."""

from __future__ import annotations

import logging
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from dispute_evidence import prefect_env
from dispute_evidence.names import terminal

prefect_env.quiet()  # before any command imports Prefect

LOG_LEVEL = {"console": "WARNING"}  # the pipeline's own lines on the terminal; -v: INFO


def _flag(name: str, help: str, *short: str) -> Any:
    """A boolean flag (typer 0.29 with click 8.5 would show it as taking a `<bool>`)."""
    return typer.Option(name, *short, metavar="", help=help)


class _Group(TyperGroup):
    """`--help` without a `<bool>` metavar, on the group and every command (see `_flag`)."""

    def get_help_option(self, ctx: Any) -> Any:  # typer's vendored click types
        return _bare(super().get_help_option(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _bare(command.get_help_option(ctx))  # cached by click: the one --help shows
        return command


def _bare(option: Any) -> Any:
    if option is not None:
        option.metavar = ""
    return option


app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="`dispute-evidence`: the one entry point.",
    cls=_Group,
)


@app.callback()
def _root(
    verbose: Annotated[
        bool,
        _flag("--verbose", "Show Prefect's and the pipeline's INFO logs.", "-v"),
    ] = False,
) -> None:
    """Get merchants' chargeback evidence to the Dispute Evidence API: complete, on time, once."""
    if verbose:  # read when Prefect is first imported, which the commands do lazily
        prefect_env.verbose()
        LOG_LEVEL["console"] = "INFO"


def main() -> None:
    app()


def echo(message: str = "", err: bool = False) -> None:
    """The commands' one door to the terminal: text from the config, a merchants file, the
    inbox or the state may hold escape sequences, shown here and never obeyed."""
    typer.echo(terminal(message), err=err)


class _TerminalFormatter(logging.Formatter):
    """Log lines on the terminal, their messages' control characters shown (see `echo`)."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal(super().format(record))


def terminal_logging(level: str | int, fmt: str | logging.Formatter) -> None:
    """logging.basicConfig(level=level, format=fmt), its lines through _TerminalFormatter (or
    `fmt` itself, one of its kind)."""
    root = logging.getLogger()
    if root.handlers:  # configured already: basicConfig would change nothing either
        return
    handler = logging.StreamHandler()
    handler.setFormatter(fmt if isinstance(fmt, logging.Formatter) else _TerminalFormatter(fmt))
    root.addHandler(handler)
    root.setLevel(level)


# -- run / demo / status / serve ----------------------------------------------------
class ConsoleFormat(_TerminalFormatter):
    """The pipeline's own lines are written for the analyst: said plainly, as the rest of the
    output is. A library's record keeps its level and logger, which say where it came from."""

    def __init__(self) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        if record.name == "dispute_evidence" or record.name.startswith("dispute_evidence."):
            return terminal(record.getMessage())
        return super().format(record)


def _console_logging() -> None:
    level = LOG_LEVEL["console"]
    terminal_logging(level, ConsoleFormat())  # no-op if a host set logging up
    for handler in logging.getLogger().handlers:  # records propagated from Prefect's loggers
        handler.setLevel(level)  # skip the root logger's level: the handler's still applies
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per Prefect API call


CONFIG_HELP = (
    "TOML config. Default, first found: $DISPUTE_EVIDENCE_CONFIG, "
    "<inbox>/../config/dispute-evidence.toml, ./config/dispute-evidence.toml."
)


INBOX_HELP = (
    "The inbox folder (spreadsheets and evidence files). Required unless the config sets "
    "`inbox` in its paths section; there is no other default."
)
