"""The dispute table's columns, once: each column's key, its title, where it shows and in what
order (disputes.xlsx/.csv, the page's table, the page's per-dispute section, the terminal
summary, `dispute-evidence status`) and how its words are made from a row.

Every surface iterates `columns(surface)`; a new column is one entry in `COLUMNS`. A title that
differs on one surface (the page's "State" is the sheet's "Status") is said in the same entry.
The sheet gets each column's stored value (numbers stay numbers, deadlines real dates); the
text surfaces get `words(column, row)`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from dispute_evidence.reports.money import amount_of, days_left_words, fmt_money, text

Row = Mapping[str, Any]  # one dispute: the dispute table's record


class Surface(StrEnum):
    XLSX = "xlsx"  # disputes.xlsx and disputes.csv: what an analyst works from first
    PAGE = "page"  # the page's dispute table (its first columns are the phone's cards)
    FACTS = "facts"  # the page's section per dispute
    TERMINAL = "terminal"  # summary.txt's line per dispute
    STATUS = "status"  # `dispute-evidence status`: a line per dispute that needs something


@dataclass(frozen=True)
class Place:
    """Where a column stands on one surface: its order, its title there when not the
    column's own, and (a terminal line) how its words are laid out."""

    order: int
    title: str = ""
    layout: str = "{}"


def _place(value: int | Place | None) -> Place | None:
    return Place(value) if isinstance(value, int) else value


@dataclass(frozen=True)
class Column:
    key: str  # the dispute table's column (or a derived one: see `needs`)
    title: str
    xlsx: int | Place | None = None
    page: int | Place | None = None
    facts: int | Place | None = None
    terminal: int | Place | None = None
    status: int | Place | None = None
    words: Callable[[Row], str] | None = None  # the text surfaces' words (default: the value)
    value: Literal["text", "number", "datetime"] = "text"  # the sheet's cell
    # the page's classes: "minor" is left out of a narrow table (its dispute's section shows
    # it); "code" may break after each underscore (product_not_received), "words" only
    # between words (a deadline's date and time)
    css: str = ""
    card: bool = False  # shown on the page's narrow-screen card
    needs: str = ""  # the table column it is made from, when not `key`
    places: dict[Surface, Place] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        found = {s: _place(getattr(self, s.value)) for s in Surface}
        object.__setattr__(self, "places", {s: p for s, p in found.items() if p is not None})

    def title_on(self, surface: Surface) -> str:
        return self.places[surface].title or self.title

    def shows_in(self, row_keys: Any) -> bool:
        """Whether a table with these columns can fill it."""
        return self.key in row_keys or bool(self.needs) and self.needs in row_keys


def _days(row: Row) -> str:
    days = row.get("days_left")
    return "" if days is None or days != days else str(int(days))


def _due(row: Row) -> str:
    days = row.get("days_left")
    return "no deadline" if days is None or days != days else days_left_words(int(days))


def _state(row: Row) -> str:
    return text(row.get("state_words") or row.get("status_words") or row.get("status"))


def _todo(row: Row) -> str:
    add = text(row.get("what_to_add"))
    return f"add {add}" if add else text(row.get("next_step"))


def _files(row: Row) -> str:
    return f"{text(row.get('files_uploaded'))} of {text(row.get('files_total'))}"


def _deadline(row: Row) -> str:
    return text(row.get("response_due_by"))[:16].replace("T", " ")


def _amount(row: Row) -> str:
    return fmt_money(amount_of(dict(row)), text(row.get("currency")))


# In the sheet's order: what an analyst works from first, internal columns last.
COLUMNS: tuple[Column, ...] = (
    Column(
        "provider_dispute_id",
        "Dispute",
        xlsx=1,
        page=1,
        terminal=Place(1, layout="{:<30} "),
        status=Place(1, layout="{:<28} "),
        css="id",
        card=True,
    ),
    Column("order_number", "Order", xlsx=2, page=6, facts=1, css="nowrap minor"),
    Column(
        "amount",
        "Amount",
        xlsx=3,
        page=2,
        facts=2,
        status=Place(3, layout="{:>14}  "),
        words=_amount,
        value="number",
        css="num nowrap",
        card=True,
    ),
    Column("currency", "Currency", xlsx=4),
    Column("reason", "Reason", xlsx=5, page=7, facts=3, css="code minor"),
    Column(
        "response_due_by",
        "Deadline (UTC)",
        xlsx=6,
        page=8,
        facts=4,
        words=_deadline,
        value="datetime",
        css="words minor",
    ),
    Column("days_left", "Days left", xlsx=7, page=3, facts=5, words=_days, css="num", card=True),
    Column("due", "Time left", status=Place(2, layout="{:<15} "), words=_due, needs="days_left"),
    Column(
        "state_words",
        "Status",
        xlsx=8,
        page=Place(4, "State"),
        facts=Place(6, "State"),
        terminal=2,
        status=Place(4, layout="{}: "),
        words=_state,
        css="state",
        card=True,
        needs="status",
    ),
    Column("next_step", "Next step", xlsx=9, page=5, facts=7, css="wide", card=True),
    Column("todo", "Still needs", status=5, words=_todo, needs="next_step"),
    # a person writes yes under Approve and drops the sheet back (engine/review/approval.py)
    Column("approve", "Approve", xlsx=10),
    Column("evidence_version", "Evidence version", xlsx=11),  # what that approval covers
    # the approval in force: who, how, which version, when
    Column("approved", "Approved by", xlsx=12, facts=8),
    Column(
        "completeness",
        "Evidence (by reason)",
        xlsx=13,
        page=9,
        facts=Place(9, "Evidence verdict"),
        css="wide",
    ),
    Column("what_to_add", "What to add", xlsx=14, facts=10),
    Column("delivery", "Delivery", xlsx=15, facts=11),  # the case's one delivery fact
    Column("contradictions", "Contradictions", xlsx=16, facts=12),  # each with what to do
    Column("advice", "Fight or accept", xlsx=17, facts=13),
    Column("visa_ce3", "Visa CE 3.0", xlsx=18, facts=14),
    Column("letter", "Rebuttal letter", xlsx=19, facts=15),
    Column(
        "files_uploaded",
        "Files uploaded",
        xlsx=20,
        page=Place(10, "Files"),
        words=_files,
        css="num nowrap",
        needs="files_total",
    ),
    Column("files_total", "Files matched", xlsx=21),
    # the store's own documents attached (the inbox's store/ folder), with their version
    Column("store_documents", "Store documents", xlsx=22, facts=16),
    Column("file_problems", "File problems", xlsx=23, facts=17),
    Column("summary_pdf", "Summary PDF (current)", xlsx=24),
    Column("generated_at_api", "Generated PDF at the API", xlsx=25, facts=18),
    Column("detail", "Detail", xlsx=26),
    Column("api_status", "Status at the API", facts=19),
    Column("status", "status (code)", xlsx=27),
    Column("dispute_id", "API dispute id", xlsx=28, facts=20),
    Column("attempts", "attempts", xlsx=29),
    Column("last_error", "last error", xlsx=30, facts=Place(21, "Last error")),
    Column("updated_at", "updated at (UTC)", xlsx=31),
)

BY_KEY = {c.key: c for c in COLUMNS}


def columns(surface: Surface) -> list[Column]:
    """The columns `surface` shows, in its order."""
    return sorted(
        (c for c in COLUMNS if surface in c.places), key=lambda c: c.places[surface].order
    )


def title(key: str, surface: Surface = Surface.XLSX) -> str:
    """A column's title on `surface` (the sheet's by default)."""
    return BY_KEY[key].title_on(surface)


def words(column: Column, row: Row) -> str:
    """The column's words for one dispute, as the page and the terminal show them."""
    return column.words(row) if column.words else text(row.get(column.key))


def line(surface: Surface, row: Row) -> str:
    """One dispute as a terminal line: the surface's columns laid out in order."""
    return "".join(c.places[surface].layout.format(words(c, row)) for c in columns(surface))
