"""Configuration, in one package: the settings model (model.py, with its review and standing
sections), where its values come from in one order (sources.py), the bounds a number may take
(bounds.py), loading and checking it whole (load.py), and one run's request (request.py).
Plain data: it builds none of the domain's objects (the engine makes the read limits and the
mappings from it). Importers take these names from here."""

from __future__ import annotations

from dispute_evidence.settings.bounds import MAX_AMOUNT, MAX_DAYS, out_of_range
from dispute_evidence.settings.load import check_settings, load_settings
from dispute_evidence.settings.model import (
    AdviceSection,
    AlertsSection,
    ApiSection,
    EvidenceSection,
    IngestSection,
    MerchantSection,
    PathsSection,
    PrefectSection,
    ReadbackSection,
    RetentionSection,
    ScheduleSection,
    Settings,
)
from dispute_evidence.settings.request import RunRequest
from dispute_evidence.settings.review_section import ReviewSection
from dispute_evidence.settings.sources import ConfigError, find_config
from dispute_evidence.settings.standing_section import StandingSection

__all__ = [
    "MAX_AMOUNT",
    "MAX_DAYS",
    "AdviceSection",
    "AlertsSection",
    "ApiSection",
    "ConfigError",
    "EvidenceSection",
    "IngestSection",
    "MerchantSection",
    "PathsSection",
    "PrefectSection",
    "ReadbackSection",
    "RetentionSection",
    "ReviewSection",
    "RunRequest",
    "ScheduleSection",
    "Settings",
    "StandingSection",
    "check_settings",
    "find_config",
    "load_settings",
    "out_of_range",
]
