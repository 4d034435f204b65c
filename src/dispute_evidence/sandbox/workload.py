"""Workloads for the sandbox: disputes to seed it with, and an inbox that matches them.

Tests and benchmarks both build their runs from these (like stripe-mock's fixtures, they are
part of the local API, not of the tests)."""

from __future__ import annotations

import csv
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dispute_evidence.api.models import MerchantProfile
from dispute_evidence.sandbox.ids import iso

TOKEN = "sk_test_fixture_token_93f1"  # the sandbox key the tests use

MERCHANT = MerchantProfile(
    merchant_id="m_1", merchant_name="Acme", merchant_website="https://acme.test"
)


def seed_rows(
    n: int = 3, prefix: str = "dp_test_", reason: str | None = None, first: int = 0
) -> list[dict[str, object]]:
    """n open disputes for the sandbox, due in 10, 11, ... days; no reason unless one is given
    (runs compare the API's reason with the disputes list's: make_inbox's is "general")."""
    now = datetime.now(UTC)
    return [
        {
            "provider_dispute_id": f"{prefix}{i}",
            "initiated_at": iso(now - timedelta(days=3)),
            "response_due_by": iso(now + timedelta(days=10 + i)),
            "amount": 1000 + i,
            "currency": "USD",
            "reason": reason or "",
            "status": "needs_response",
            "provider": "stripe",
        }
        for i in range(first, first + n)
    ]


def write_rows(path: Path, header: list[str], rows: list[list[object]]) -> None:
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)


def make_inbox(
    inbox: Path,
    n: int,
    files: tuple[int, int] = (1, 1),
    seed: int = 1,
    prefix: str = "dp_test_",
    first: int = 0,
) -> int:
    """Disputes/orders/shipments CSVs for n disputes (numbered from `first`) and 1-3 PDFs each;
    returns the file count."""
    numbers = range(first, first + n)
    rng = random.Random(seed)
    inbox.mkdir(parents=True, exist_ok=True)
    write_rows(
        inbox / "disputes.csv",
        ["provider_dispute_id", "order_number", "reason"],
        [[f"{prefix}{i}", f"#{5000 + i}", "general"] for i in numbers],
    )
    # complete evidence for a "general" dispute (products, customer name and email)
    write_rows(
        inbox / "orders.csv",
        [
            "order_number",
            "product_title",
            "price",
            "quantity",
            "currency_code",
            "customer_email",
            "customer_name",
        ],
        [
            [5000 + i, f"Item {j}", 9.5 + j, 1 + j, "USD", f"c{i}@example.com", f"Customer {i}"]
            for i in numbers
            for j in range(2)
        ],
    )
    write_rows(
        inbox / "shipments.csv",
        ["order_number", "tracking_number", "carrier"],
        [[5000 + i, f"1Z{i:06d}", "UPS"] for i in numbers],
    )
    total = 0
    (inbox / "proofs").mkdir(exist_ok=True)
    for i in numbers:
        for k in range(rng.randint(*files)):
            (inbox / "proofs" / f"{prefix}{i}_proof{k}.pdf").write_bytes(
                b"%PDF-1.4\n" + f"{i}/{k}".encode() * 20
            )
            total += 1
    return total
