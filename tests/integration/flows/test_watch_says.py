"""`watch` prints each run it starts and, once it ends, its state and headline."""

from __future__ import annotations

from prefect import flow
from prefect.states import Completed

from flows.serve import DeploymentStarter


@flow(name="watch-says-probe")
def _probe() -> object:
    return Completed(message="2 sent · 1 need you", name="Needs attention")


def test_the_starter_says_the_run_it_started_and_its_headline_once_it_ends(prefect_harness):
    said: list[str] = []
    deployment_id = _probe.to_deployment(name="probe").apply()
    assert deployment_id
    starter = DeploymentStarter("watch-says-probe/probe", say=said.append)
    assert starter(["a.csv", "b.pdf"])  # a real flow run of the deployment (no worker runs it)
    assert said == [f"started watch-says-probe/probe run {_name(starter.last)} for 2 new file(s)"]
    starter.say_if_ended()
    assert len(said) == 1  # still scheduled: nothing more to say
    ended = _probe(return_state=True)  # a run that ended, as the watched one would
    starter.last = ended.state_details.flow_run_id
    starter.say_if_ended()
    starter.say_if_ended()  # said once
    assert said[1:] == [
        f"watch-says-probe/probe run {_name(starter.last)} ended: Needs attention: "
        "2 sent · 1 need you"
    ]


def _name(flow_run_id: object) -> str:
    from prefect import get_client

    with get_client(sync_client=True) as client:
        return str(client.read_flow_run(flow_run_id).name)
