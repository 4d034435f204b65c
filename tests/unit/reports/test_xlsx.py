"""disputes.xlsx: amounts are numbers in their currency's format, with a total per currency
under the table (outside the filter); text cells stay escaped."""

from __future__ import annotations

import pandas as pd
from openpyxl import load_workbook

from dispute_evidence.reports import RunReport, write_report


def test_amounts_are_numbers_in_currency_format_with_a_total_per_currency(tmp_path):
    table = pd.DataFrame(
        {
            "provider_dispute_id": ["dp_1", "dp_2", "=cmd|'/c calc'!A1", "dp_4"],
            "amount": ["129", 44.5, "12.25", "abc"],
            "currency": ["USD", "EUR", "USD", '"; ="x'],
            "status": ["submitted", "incomplete", "pending", "pending"],
        }
    )
    write_report(RunReport("r", "ok", False, {}, table), tmp_path)
    ws = load_workbook(tmp_path / "disputes.xlsx").active
    header = [c.value for c in ws[1]]
    amount, currency = header.index("Amount") + 1, header.index("Currency") + 1
    cells = [ws.cell(row, amount) for row in range(2, 6)]
    assert [c.value for c in cells] == [129, 44.5, 12.25, None]  # text that is no number: empty
    assert cells[0].number_format == '#,##0.00 "USD"' and cells[1].number_format == '#,##0.00 "EUR"'
    assert ws.cell(4, 1).value == "'=cmd|'/c calc'!A1"  # still escaped
    assert ws.cell(5, currency).value == '"; ="x'  # text, never part of a number format
    assert all(ws.cell(6, col).value is None for col in range(1, len(header) + 1))  # a gap
    totals = {ws.cell(row, 1).value: ws.cell(row, amount) for row in (7, 8)}
    assert set(totals) == {"Total EUR", "Total USD"}
    assert totals["Total USD"].value == 141.25 and totals["Total EUR"].value == 44.5
    assert totals["Total USD"].number_format == '#,##0.00 "USD"' and totals["Total USD"].font.b
    assert ws.auto_filter.ref.endswith("5")  # the filter covers the disputes, not the totals
    assert pd.read_csv(tmp_path / "disputes.csv")["Amount"].tolist()[:3] == [129, 44.5, 12.25]
