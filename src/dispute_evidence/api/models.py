"""Pydantic models of the spec's resources (responses tolerant, request bodies strict)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Response(BaseModel):
    # Unknown fields are kept, not refused: a new field on the server must not break us.
    model_config = ConfigDict(extra="allow", frozen=True)


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Dispute(_Response):
    id: str
    object: str = "dispute"
    initiated_at: datetime | None = None
    response_due_by: datetime | None = None
    amount: float | None = None
    currency: str | None = None
    reason: str | None = None
    status: str | None = None
    provider: str | None = None
    evidence: dict[str, Any] | None = None


class File(_Response):
    id: str
    object: str = "file"
    created_at: datetime
    url: str
    file_name: str
    file_type: str
    dispute_id: str


class FileSummary(_Response):
    id: str
    url: str
    name: str


class Product(_Request):
    product_title: str = Field(min_length=1)
    price: float = Field(ge=0, description="Unit price as a number in major units")
    quantity: float = Field(gt=0)
    currency_code: str = Field(pattern=r"^[A-Z]{3}$")


class MerchantProfile(_Request):
    merchant_id: str
    merchant_name: str
    merchant_website: str


class Evidence(_Request):
    """The spec's Evidence input: always sent complete by the engine."""

    products: list[Product] = Field(default_factory=list)
    merchant_profile: MerchantProfile | None = None
    shipping_tracking_numbers: list[str] = Field(default_factory=list)
    additional_evidence: dict[str, Any] = Field(default_factory=dict)


class UpdateEvidenceResult(_Response):
    message: str
    dispute_id: str
    provider_dispute_id: str


class UploadResult(_Response):
    message: str
    dispute_id: str
    provider_dispute_id: str
    file: FileSummary


class ErrorBody(_Response):
    type: str
    message: str
    code: str | None = None
    param: str | None = None


class DisputePage(_Response):
    data: list[Dispute]


class FilePage(_Response):
    data: list[File]
