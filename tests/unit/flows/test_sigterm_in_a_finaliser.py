"""A SIGTERM that lands while a finaliser runs (an event loop's __del__) cannot leave it: Python
would print "Exception ignored ... Traceback" and the run would go on. Serve's runs give the
signal to the main thread again, so it stops the run after the finaliser (flows/pipeline.py);
seen once in a full test run (tests/e2e/flows/test_serve_stops.py). (flows/ imports Prefect:
imported by the test, not at collection, so only the worker running it pays.)"""

from __future__ import annotations

import gc
import signal
import sys
import time

import pytest

from dispute_evidence.engine.run_steps import Terminated


class _Finaliser:
    def __del__(self) -> None:
        signal.raise_signal(signal.SIGTERM)  # the signal lands inside the finaliser
        time.sleep(0.01)


def test_a_sigterm_swallowed_by_a_finaliser_still_stops_the_run(capsys):
    from flows.pipeline import _sigterm_stops_like_ctrl_c

    before = sys.unraisablehook
    with pytest.raises(Terminated), _sigterm_stops_like_ctrl_c():
        _Finaliser()  # collected here: its __del__ runs, the Terminated raised in it is lost
        gc.collect()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # given again from another thread: lands here
            time.sleep(0.01)
    assert "Traceback" not in capsys.readouterr().err
    assert sys.unraisablehook is before  # put back as it was
