"""What a run is asked to do, as the stages read it: the inbox, the merchant, how sheets and
documents are read, and the policies of every stage. Plain data below every room of the engine
(engine/run_steps.py builds it from the settings)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from dispute_evidence.api import MerchantProfile
from dispute_evidence.documents.reading import ReadLimits
from dispute_evidence.ingest import DEFAULT_MAX_FILE_BYTES
from dispute_evidence.ingest.layouts import Mapping
from dispute_evidence.policies import (
    AdvicePolicy,
    AlertPolicy,
    PacketPolicy,
    ReadPolicy,
    RetentionPolicy,
    ReviewPolicy,
    StandingPolicy,
)

# The build's own rules: bump when a change to the builder changes what payloads hold
# (a state from before v19 is rebuilt once: its payloads, unchanged, gain their typed facts)
BUILD_RULES = (
    "2026-11-28 an order's latest charges kept, a duplicate's other purchase, the "
    "checkout IP and device, the account's activity (issue 44 items 7-10)"
)


@dataclass
class RunOptions:
    inbox: Path
    merchant: MerchantProfile | None = None
    merchant_country: str = ""  # ISO code ([merchant] country): Visa's domestic AVS rule
    mappings: tuple[Mapping, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    settle_seconds: float = 5.0
    archive: bool = True
    blob_dir: Path | None = None
    concurrency: int = 8
    summary_pdf: bool = False  # an evidence summary PDF per dispute (settings: on by default)
    # how evidence documents are read (documents/reading.py); None: not read, matched by name only
    read_limits: ReadLimits | None = field(default_factory=ReadLimits)
    read_policy: ReadPolicy | None = None  # read disputes back from the API (None: do not)
    dayfirst: bool | None = None  # numeric dates a column leaves open (the config's locale)
    send_partial: bool = False  # send an order with an unused row or lines that do not add up
    zone: str = "UTC"  # where a deadline given as a date alone ends (the config's time zone)

    def build_inputs(self) -> str:
        """What shapes a payload besides the records: a change rebuilds (and re-sends) them."""
        merchant = self.merchant.model_dump() if self.merchant else None
        shape = {"rules": BUILD_RULES, "merchant": merchant, "send_partial": self.send_partial}
        if self.merchant_country:
            shape["country"] = self.merchant_country.strip().upper()
        return hashlib.sha256(orjson.dumps(shape, option=orjson.OPT_SORT_KEYS)).hexdigest()

    def ingest_inputs(self) -> str:
        """What decides how a sheet is read: a file dropped again after a change is re-read."""
        shape = repr((self.mappings, self.dayfirst, self.zone))
        return hashlib.sha256(shape.encode()).hexdigest()

    packet: PacketPolicy = field(default_factory=PacketPolicy)  # upload mode, network limits
    review: ReviewPolicy = field(default_factory=ReviewPolicy)  # what waits for approval
    alerts: AlertPolicy | None = None  # alerts about disputes at risk (None: none)
    advice: AdvicePolicy = field(default_factory=AdvicePolicy)  # fight or accept ([advice])
    retention: RetentionPolicy = field(default_factory=RetentionPolicy)  # [retention]: off
    standing: StandingPolicy = field(default_factory=StandingPolicy)  # the card programs
