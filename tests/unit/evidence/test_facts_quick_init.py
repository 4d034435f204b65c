"""The facts' faster `__init__` (facts.py `_quick_init`, issue 47 item 6) makes the same
objects the dataclass's own did: same signature and defaults, frozen, equal and hashable
alike, and read back from their JSON the same."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from dispute_evidence.evidence import dispute_facts as F

CLASSES = (
    F.Product,
    F.OrderFacts,
    F.ShipmentRow,
    F.Charge,
    F.Refund,
    F.Claim,
    F.Statement,
    F.Purchase,
    F.Activity,
    F.DisputeFacts,
)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_the_quick_init_keeps_the_dataclass_signature_and_frozenness(cls: type) -> None:
    params = list(inspect.signature(cls).parameters.values())
    fields = dataclasses.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    assert [p.default for p in params] == [
        inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default for f in fields
    ]
    assert cls.__init__.__qualname__ == f"{cls.__name__}.__init__"
    given = {f.name: "x" for f in fields if f.default is dataclasses.MISSING}
    made = cls(**given)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, fields[0].name, "y")
    assert made == cls(**given) and hash(made) == hash(cls(**given))


def test_facts_made_by_the_quick_init_read_back_from_json_equal() -> None:
    facts = F.DisputeFacts(
        F.OrderFacts("1041", customer_email="ann@example.com", order_total=40),
        (F.Product("Shirt", 19.5, 2, "USD"), F.Product("Hat", None, 1, "USD", "products export")),
        ("1Z999",),
        (F.ShipmentRow("1Z999", "UPS", delivered_at="2026-03-05"),),
        claim=F.Claim("fraudulent", "USD", 40, opened_on="2026-03-20"),
        statement=F.Statement("No refund is owed.", "statement file"),
    )
    again = F.load_facts(F.dump_facts(facts))
    assert again == facts
    assert again.products[1].price_from == "products export"
    assert again.order.customer_name == ""  # a default, left out of the JSON, read back
