"""A flow run that fails on purpose (a configuration error, a shard crashed too often, an
approval refused) says why in its state's message, one line, and nothing more.

Prefect's engine, in the run's own process (serve's runs, a worker's), raises the Failed state
a flow returned and logs its traceback ("Engine execution exited with unexpected exception",
30 lines of Prefect's internals after our line, in serve's terminal and on the run's logs
page). That record is dropped when its exception is the wrapper of a state we returned
(FailedRun): an exception a flow raised is still logged with its traceback."""

from __future__ import annotations

import logging
from typing import Any

from prefect import State
from prefect.exceptions import FailedRun
from prefect.states import Failed

RUN_LOGGER = "prefect.flow_runs"  # where the engine logs a run's end (flow_run_logger)


class _SaidAlready(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, FailedRun)


_SAID_ALREADY = _SaidAlready()


def failed(message: str, data: Any = None) -> State[Any]:
    """The run's Failed state, `message` its one line; its traceback is not logged."""
    logger = logging.getLogger(RUN_LOGGER)
    if _SAID_ALREADY not in logger.filters:
        logger.addFilter(_SAID_ALREADY)
    return Failed(message=message, data=data)
