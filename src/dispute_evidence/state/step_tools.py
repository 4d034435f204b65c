"""The migration steps' tools: alembic's operations on the opening connection, a column's
type by the name it was written with, a table rebuilt in a new shape with its rows kept."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Column,
    Float,
    Integer,
    MetaData,
    Numeric,
    String,
    Table,
    Text,
    cast,
    func,
    select,
)
from sqlalchemy.engine import Connection
from sqlalchemy.types import TypeEngine

if TYPE_CHECKING:
    from alembic.operations import Operations


def alter(conn: Connection) -> Operations:
    """Schema changes on `conn` as SQLAlchemy constructs (alembic's operations, no SQL text).
    Alembic loads only when a schema changes (0.4 s: not on every run's start)."""
    from alembic.migration import MigrationContext
    from alembic.operations import Operations

    return Operations(MigrationContext.configure(conn))


def column_type(kind: str) -> TypeEngine[Any]:
    """'VARCHAR(64)', 'TEXT', 'INTEGER' as SQLAlchemy types."""
    if m := re.fullmatch(r"VARCHAR\((\d+)\)", kind.upper()):
        return String(int(m.group(1)))
    types: dict[str, TypeEngine[Any]] = {"TEXT": Text(), "INTEGER": Integer(), "FLOAT": Float()}
    return types[kind.upper()]


def add_columns(conn: Connection, table: str, columns: dict[str, str]) -> None:
    """Add each of `columns` (name: SQL type, e.g. 'VARCHAR(64)') to `table`."""
    ops = alter(conn)
    for name, kind in columns.items():
        ops.add_column(table, Column(name, column_type(kind)))


def rebuild(conn: Connection, table: Table, aside: str) -> None:
    """`table` made again in its new shape, with the rows of the one of its name (set aside as
    <name><aside> while copied, then dropped): its columns keep their declared order."""
    alter(conn).rename_table(table.name, f"{table.name}{aside}")
    old = Table(f"{table.name}{aside}", MetaData(), autoload_with=conn)
    table.create(conn)
    names = [c.name for c in table.columns if c.name in old.c]
    picked = [as_column_of(old.c[n], table.c[n]) for n in names]
    conn.execute(table.insert().from_select(names, select(*picked)))
    old.drop(conn)


def as_column_of(value: Column[Any], target: Column[Any]) -> Any:
    """`value` as `target` stores it: text ('' none) made a number where a number goes."""
    if isinstance(target.type, Float) and not isinstance(value.type, Numeric | Integer):
        return cast(func.nullif(value, ""), Float)
    return value


def pid() -> Column[str]:
    return Column("provider_dispute_id", String(255), primary_key=True)
