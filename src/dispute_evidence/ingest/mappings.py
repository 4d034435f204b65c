"""Custom column mappings from TOML, so a merchant's own sheet ingests without code changes.

[[mapping]]
name = "Retail invoice sheet"
kind = "orders"                      # any kind of layouts.FIELDS: disputes, orders, products, ...
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

from dispute_evidence.errors import DisputeEvidenceError
from dispute_evidence.exits import EXIT_USAGE
from dispute_evidence.ingest.layouts import FIELDS, ORDER_LEVEL, Mapping
from dispute_evidence.names import did_you_mean

MAPPING_KEYS = frozenset(
    {"name", "kind", "columns", "defaults", "order_fields_on_first_row_only", "dayfirst"}
)


class MappingError(DisputeEvidenceError, ValueError):
    """A mapping file is wrong; the message names the file and key."""

    exit_code = EXIT_USAGE


def parse_mappings(data: dict[str, Any], source: str) -> tuple[Mapping, ...]:
    """Every mapping of `data`; MappingError lists every problem found, one line each."""
    out, problems = [], []
    for i, item in enumerate(data.get("mapping", []), start=1):
        where = f"{source}: mapping #{i}"
        found = [f"{where}: {p}" for p in _item_problems(item)]
        if found:
            problems += found
            continue
        kind = item["kind"]
        columns = {
            fld: (header,) if isinstance(header, str) else tuple(header)
            for fld, header in item.get("columns", {}).items()
        }
        defaults = {str(k): str(v) for k, v in item.get("defaults", {}).items()}
        mapping = Mapping(
            str(item.get("name") or f"{source} #{i}"),
            kind,
            columns,
            defaults,
            forward_fill=ORDER_LEVEL if item.get("order_fields_on_first_row_only") else (),
            dayfirst=item.get("dayfirst"),
        )
        if missing := sorted(mapping.required() - set(columns) - set(defaults)):
            problems.append(
                f"{where}: no column or default for required field(s) {', '.join(missing)}"
            )
            continue
        out.append(mapping)
    if problems:
        raise MappingError("\n".join(problems))
    return tuple(out)


def _item_problems(item: dict[str, Any]) -> list[str]:
    """What is wrong with one [[mapping]] table, one line per problem."""
    kind = item.get("kind")
    if kind not in FIELDS:
        return [
            f"kind must be one of {', '.join(FIELDS)}, got {kind!r}"
            + did_you_mean(str(kind), FIELDS)
        ]
    out = [
        f"columns.{fld} is not a {kind} field"
        + (did_you_mean(fld, FIELDS[kind]) or f" ({', '.join(FIELDS[kind])})")
        for fld in item.get("columns", {})
        if fld not in FIELDS[kind]
    ]
    out += [
        f"defaults.{fld} is not a {kind} field" + did_you_mean(fld, FIELDS[kind])
        for fld in item.get("defaults", {})
        if fld not in FIELDS[kind]
    ]
    dayfirst = item.get("dayfirst")
    if dayfirst is not None and not isinstance(dayfirst, bool):
        out.append(f"dayfirst must be true or false, got {dayfirst!r}")
    out += [
        f"unknown key {key!r}" + did_you_mean(key, MAPPING_KEYS)
        for key in sorted(set(item) - MAPPING_KEYS)
    ]
    return out


def load_mappings(path: Path) -> tuple[Mapping, ...]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise MappingError(f"{path}: not valid TOML ({exc})") from None
    return parse_mappings(data, str(path))


def config_mappings(
    inline: list[dict[str, Any]], files: list[Path], base: Path
) -> tuple[Mapping, ...]:
    """The config's inline mappings, then its mapping files (relative to `base`).
    MappingError lists the problems of every mapping and file at once."""
    out: list[Mapping] = []
    problems: list[str] = []
    sources: list[tuple[str, Any]] = [("config [[ingest.mapping]]", inline)]
    for f in files:
        path = f if f.is_absolute() else base / f
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            problems.append(f"ingest.mapping_files: {path}: file not found")
            continue
        except tomllib.TOMLDecodeError as exc:
            problems.append(f"ingest.mapping_files: {path}: not valid TOML ({exc})")
            continue
        sources.append((str(path), data.get("mapping", [])))
    for source, items in sources:
        try:
            out.extend(parse_mappings({"mapping": items}, source))
        except MappingError as exc:
            problems.append(str(exc))
    if problems:
        raise MappingError("\n".join(problems))
    return tuple(out)
