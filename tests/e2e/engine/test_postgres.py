"""The engine on PostgreSQL (a throwaway cluster on a Unix socket), including two runs at once."""

from __future__ import annotations

import asyncio

import pytest

from dispute_evidence.api import DisputeEvidenceClient
from dispute_evidence.engine.delivery.submit import Submitter
from dispute_evidence.engine.prepare.build import ingest_inbox_step, prepare_step
from dispute_evidence.sandbox import SandboxConfig
from dispute_evidence.settings import RunRequest
from dispute_evidence.state.store import StateStore
from support.pg import free_port, postgres_missing, throwaway_postgres
from tests.conftest import TOKEN, seed_rows
from tests.e2e.engine.test_engine import assert_exact
from tests.support.engine_helpers import make_inbox, options, run_once
from tests.support.ledger_contract import CONTRACT, Clock, store_seeded

# a PostgreSQL cluster of its own (a process), or loopback sockets that refuse or say nothing
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def postgres_url():
    if why := postgres_missing():
        pytest.skip(why)
    with throwaway_postgres(free_port()) as server:
        yield f"postgresql+psycopg://{server}/postgres"


def _fresh(url: str, **kwargs) -> StateStore:
    from sqlalchemy import create_engine, text

    eng = create_engine(url)
    with eng.begin() as c:
        c.execute(text("DROP SCHEMA public CASCADE; CREATE SCHEMA public"))
    eng.dispose()
    return StateStore(url, **kwargs)


@pytest.mark.parametrize("check", CONTRACT, ids=[c.__name__ for c in CONTRACT])
def test_the_ledger_keeps_its_contract_on_postgres(postgres_url, check):
    """The contract the in-memory ledger of the submitter's unit tests is held to, here on
    PostgreSQL (tests/unit/state/test_ledger_contract.py: SQLite and the fake)."""
    clock = Clock()
    store = _fresh(postgres_url, wall=clock)
    try:
        check(store_seeded(store, clock))
    finally:
        store.close()


async def test_engine_on_postgres_exactly_once_and_resumable(
    postgres_url, sandbox_factory, tmp_path
):
    sb = sandbox_factory(SandboxConfig(tokens=(TOKEN,), fail_rate=0.1, seed=4), rows=seed_rows(25))
    files = make_inbox(tmp_path / "inbox", 25, files=(1, 2))
    store = _fresh(postgres_url)
    await run_once(store, sb.base_url, tmp_path / "inbox", max_attempts=10)
    assert_exact(sb.snapshot(), store, 25, files)
    _, attempts = await run_once(store, sb.base_url, tmp_path / "inbox")
    assert attempts == 1  # the run's first request (a one-dispute page), nothing sent
    assert "postgres" in repr(store) and "***" not in repr(store)
    store.close()


async def test_two_runs_on_one_postgres_never_share_a_dispute(
    postgres_url, sandbox_factory, tmp_path
):
    sb = sandbox_factory(
        SandboxConfig(tokens=(TOKEN,), latency_rate=1.0, latency_ms=(5, 15)), rows=seed_rows(30)
    )
    files = make_inbox(tmp_path / "inbox", 30)
    a, b = _fresh(postgres_url), StateStore(postgres_url)  # two machines' views of one database
    opts = options(tmp_path / "inbox")
    prepare_step(a, opts, ingest_inbox_step(a, opts, "r1"), "r1", rebuild=True)

    async def run(store):
        async with DisputeEvidenceClient(sb.base_url, TOKEN, rate_limit_per_hour=10**7) as c:
            return await Submitter(store, c, concurrency=4).run()

    sa, sb_stats = await asyncio.gather(run(a), run(b))
    assert sa.evidence_sent + sb_stats.evidence_sent == 30
    assert all(s["evidence_updates"] == 1 for s in sb.snapshot().values())
    assert_exact(sb.snapshot(), a, 30, files)
    a.close()
    b.close()


def _dump(url: str) -> dict[str, list[tuple]]:
    """Every table's rows, sorted: the state's content, to compare before and after."""
    from sqlalchemy import MetaData, create_engine, select

    eng = create_engine(url)
    meta = MetaData()
    try:
        with eng.connect() as c:
            meta.reflect(c)
            return {
                t.name: sorted(tuple(map(str, r)) for r in c.execute(select(t)))
                for t in meta.sorted_tables
            }
    finally:
        eng.dispose()


def test_a_dry_run_on_postgres_changes_nothing(postgres_url, sandbox_factory, tmp_path):
    from dispute_evidence.engine.run_steps import run_inbox
    from dispute_evidence.settings import load_settings

    sb = sandbox_factory(rows=seed_rows(3))
    inbox = tmp_path / "inbox"
    make_inbox(inbox, 3)
    _fresh(postgres_url).close()
    settings = load_settings(None, ingest={"settle_seconds": 0})
    api = settings.api_settings(base_url=sb.base_url, token=TOKEN)
    run_inbox(
        settings, RunRequest(inbox=inbox, state=postgres_url), api=api
    )  # a real run: state to compare
    (inbox / "dp_test_1 more.pdf").write_bytes(b"%PDF-1.4 more")
    before = _dump(postgres_url)
    result = run_inbox(
        settings, RunRequest(inbox=inbox, state=postgres_url, dry_run=True)
    )  # the file + summary v2
    assert _dump(postgres_url) == before
    assert result.counts["would_upload"] == 2 and (inbox / "dp_test_1 more.pdf").exists()


def test_a_version_11_state_on_postgres_keeps_its_records(postgres_url):
    """v12 rebuilds the record tables pandas made (TEXT numbers cast) on PostgreSQL too."""
    from tests.unit.engine.test_records import _assert_migrated, _v11_state

    _fresh(postgres_url).close()
    _v11_state(postgres_url)
    _assert_migrated(postgres_url)


def _closed_port_url(password: str = "") -> str:
    secret = f":{password}" if password else ""
    return f"postgresql+psycopg://disputes{secret}@127.0.0.1:{free_port()}/disputes"


def test_a_postgres_connection_lost_mid_work_is_state_unavailable(postgres_url):
    """The server ends the store's connection (a restart, a failover, an admin): the next
    call raises StateUnavailable with the driver's first line, never a sqlalchemy error."""
    from sqlalchemy import create_engine, text

    from dispute_evidence.state.store import StateUnavailable

    store = _fresh(postgres_url)
    store.runs.set_meta("note", "kept")  # the store's pooled connection, open now
    admin = create_engine(postgres_url)
    with admin.begin() as c:
        c.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE pid <> pg_backend_pid() AND datname = current_database()"))  # fmt: skip
    admin.dispose()
    with pytest.raises(StateUnavailable, match="stopped answering") as lost:
        store.runs.get_meta("note")
    assert "nothing is sent twice" in str(lost.value)
    assert store.runs.get_meta("note") == "kept"  # the pool reconnects: the next call works
    store.close()


def test_a_postgres_state_that_does_not_answer_is_unreachable_not_damaged():
    from dispute_evidence.state.store import StateDamaged, StateError, StateUnreachable

    with pytest.raises(StateError) as refused:
        StateStore(_closed_port_url("s3cret-pw"))
    assert isinstance(refused.value, StateUnreachable)
    assert not isinstance(refused.value, StateDamaged)
    said = str(refused.value)
    assert "damaged" not in said.replace("not damaged", "") and "backup" not in said
    assert "Connection refused" in said and "127.0.0.1" in said and "s3cret" not in said
    assert "check that PostgreSQL is running" in said


def test_a_postgres_state_that_accepts_but_never_answers_is_given_up_on():
    import socket

    from dispute_evidence.state.store import StateUnreachable

    with socket.socket() as silent:  # accepts connections (the kernel's backlog), says nothing
        silent.bind(("127.0.0.1", 0))
        silent.listen(4)
        port = silent.getsockname()[1]
        url = f"postgresql+psycopg://disputes@127.0.0.1:{port}/disputes?connect_timeout=1"
        with pytest.raises(StateUnreachable, match="timeout"):
            StateStore(url)


def test_the_run_says_the_postgres_state_is_unreachable_in_one_line(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from dispute_evidence.cli import app

    (tmp_path / "inbox").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DISPUTE_API_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("DISPUTE_API_TOKEN", TOKEN)
    url = _closed_port_url()
    done = CliRunner().invoke(app, ["run", "--inbox", "inbox", "--state", url])
    assert done.exit_code == 1, done.output
    lines = [line for line in done.output.splitlines() if line.startswith("State store problem")]
    assert len(lines) == 1 and "cannot connect to the state database" in lines[0], done.output
    assert "damaged" not in lines[0].replace("not damaged", "") and "Traceback" not in done.output


def test_merchants_schemas_are_made_over_one_kept_connection(postgres_url):
    """A shard makes sure of each merchant's schema before its night (fleet/run.py
    ensure_schema). Each used to open an engine of its own: a new server connection and
    SQLAlchemy's first-connect queries in every merchant's start-up. Now one kept engine a
    database serves them all, made again only if the server closed its connection."""
    from sqlalchemy import create_engine, text

    from dispute_evidence.state.database import create_schema, with_search_path

    def backends() -> int:
        eng = create_engine(postgres_url)
        with eng.connect() as c:
            got = c.execute(text("SELECT count(*) FROM pg_stat_activity WHERE backend_type = "
                                 "'client backend' AND pid <> pg_backend_pid()")).scalar_one()  # fmt: skip
        eng.dispose()
        return int(got)

    for n in range(12):
        create_schema(with_search_path(postgres_url, f"merchant_{n}"), f"merchant_{n}")
    assert backends() == 1  # one connection kept, not twelve made and dropped
    eng = create_engine(postgres_url)
    with eng.begin() as c:
        made = c.execute(text("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'merchant_%'"))
        assert made.scalar_one() == 12
        c.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                       "backend_type = 'client backend' AND pid <> pg_backend_pid()"))  # fmt: skip
    eng.dispose()
    create_schema(with_search_path(postgres_url, "merchant_12"), "merchant_12")  # not an error


def test_a_merchants_state_is_found_by_its_tables_names_not_by_reading_the_whole_catalogue(
    postgres_url,
):
    """Every open of a PostgreSQL state asks whether its schema holds a state already (if not,
    today's tables are made in one step). SQLAlchemy's get_table_names read every row of
    pg_class for it: 534 ms at 3,200 merchants' schemas, on every merchant's every night. Now
    the state's own table names are looked up on pg_class's (relname, relnamespace) index, in
    the schema new tables go in only: another merchant's state or unrelated tables there do
    not count."""
    from sqlalchemy import create_engine, text

    from dispute_evidence.state.database import create_schema, with_search_path
    from dispute_evidence.state.schema import SCHEMA_VERSION, STATE_TABLE_LOOKUP, create_new

    def url(schema: str) -> str:
        create_schema(with_search_path(postgres_url, schema), schema)
        return with_search_path(postgres_url, schema)

    StateStore(url("lookup_a")).close()  # a merchant's state, made new
    eng = create_engine(url("lookup_b"))
    with eng.begin() as c:
        c.execute(text("CREATE TABLE notes_of_someone_else (x int)"))  # not a state's table
        assert create_new(c) is True  # another schema's state does not count
        version = c.execute(text("SELECT value FROM meta WHERE key = 'schema_version'"))
        assert version.scalar_one() == str(SCHEMA_VERSION)
    with eng.begin() as c:
        assert create_new(c) is False  # found: migrated, not made again
        c.execute(text("SET LOCAL enable_seqscan = off"))
        plan = c.execute(text("EXPLAIN " + STATE_TABLE_LOOKUP), {"names": ["meta", "disputes"]})
        lines = "\n".join(row[0] for row in plan)
    eng.dispose()
    assert "pg_class_relname_nsp_index" in lines and "Index Cond" in lines, lines
    assert "relname = ANY" in lines and "relnamespace =" in lines, lines
