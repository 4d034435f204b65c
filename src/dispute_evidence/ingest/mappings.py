"""Custom column mappings from TOML, so a merchant's own sheet ingests without code changes.

[[mapping]]
name = "Retail invoice sheet"
kind = "orders"                      # disputes | orders | shipments
[mapping.columns]                    # canonical field = header (or list of headers to join)
order_number = "InvoiceNo"
[mapping.defaults]                   # canonical field = value for every row
currency_code = "GBP"
# dayfirst = true                    # 01/12/2025 is 1 December (only needed when a column
#                                    # leaves it open: every date could be read either way)
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from dispute_evidence.ingest.layouts import FIELDS, ORDER_LEVEL, Mapping
from dispute_evidence.names import did_you_mean

MAPPING_KEYS = frozenset(
    {"name", "kind", "columns", "defaults", "order_fields_on_first_row_only", "dayfirst"}
)


class MappingError(ValueError):
    """A mapping file is wrong; the message names the file and key."""


def parse_mappings(data: dict[str, Any], source: str) -> tuple[Mapping, ...]:
    out = []
    for i, item in enumerate(data.get("mapping", []), start=1):
        where = f"{source}: mapping #{i}"
        kind = item.get("kind")
        if kind not in FIELDS:
            raise MappingError(
                f"{where}: kind must be one of {', '.join(FIELDS)}, got {kind!r}"
                + did_you_mean(str(kind), FIELDS)
            )
        columns: dict[str, tuple[str, ...]] = {}
        for fld, header in item.get("columns", {}).items():
            if fld not in FIELDS[kind]:
                raise MappingError(
                    f"{where}: columns.{fld} is not a {kind} field"
                    + (did_you_mean(fld, FIELDS[kind]) or f" ({', '.join(FIELDS[kind])})")
                )
            columns[fld] = (header,) if isinstance(header, str) else tuple(header)
        defaults = {str(k): str(v) for k, v in item.get("defaults", {}).items()}
        for fld in defaults:
            if fld not in FIELDS[kind]:
                raise MappingError(
                    f"{where}: defaults.{fld} is not a {kind} field"
                    + did_you_mean(fld, FIELDS[kind])
                )
        dayfirst = item.get("dayfirst")
        if dayfirst is not None and not isinstance(dayfirst, bool):
            raise MappingError(f"{where}: dayfirst must be true or false, got {dayfirst!r}")
        if unknown := sorted(set(item) - MAPPING_KEYS):
            raise MappingError(
                f"{where}: unknown key {unknown[0]!r}" + did_you_mean(unknown[0], MAPPING_KEYS)
            )
        mapping = Mapping(
            str(item.get("name") or f"{source} #{i}"),
            kind,
            columns,
            defaults,
            forward_fill=ORDER_LEVEL if item.get("order_fields_on_first_row_only") else (),
            dayfirst=dayfirst,
        )
        if missing := sorted(mapping.required() - set(columns) - set(defaults)):
            raise MappingError(
                f"{where}: no column or default for required field(s) {', '.join(missing)}"
            )
        out.append(mapping)
    return tuple(out)


def load_mappings(path: Path) -> tuple[Mapping, ...]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise MappingError(f"{path}: not valid TOML ({exc})") from None
    return parse_mappings(data, str(path))
