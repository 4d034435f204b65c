"""The card networks, one record each: how exports spell the brand, the evidence limits a
dispute on it is checked against, the monitoring program that counts its disputes, the shape of
its reason codes, the card-number prefixes it issues, and its name in our words.

Everything else asks this module: the standing's rows (standing/counts.py), the limits profile
(evidence/limits.py), CE 3.0's "a Visa card" (evidence/ce3.py), the settings' choices
(settings/model.py, settings/standing_section.py) and the report's colours. A new network, or a new way
an export spells one, is one edit here; tests/unit/test_networks.py fails when a brand is
spelled anywhere else in src/ (cardnumbers.py keeps its own prefix table until it reads
`PREFIXES`).

A brand is read as exports write it: case, spaces, underscores and punctuation ignored, and
the card's kind around the name ("Visa Debit", "Debit Mastercard", "Mastercard Prepaid") set
aside. Maestro is a Mastercard brand and Visa Electron a Visa one: each is counted and limited
as its network. A brand no record knows maps to '' and the standing says what fell in no row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MB = 1_000_000
Schedule = tuple[tuple[str, float], ...]  # (from this day, YYYY-MM-DD: this percent), ascending
ALL = "all"  # the standing's row when no card brand is known (orders only): held to Visa's


@dataclass(frozen=True)
class LimitProfile:
    """What a network accepts for one dispute's evidence (evidence/limits.py checks it)."""

    name: str
    max_pages: int  # all of one dispute's evidence together
    max_total_bytes: int  # all of one dispute's evidence together
    max_file_bytes: int  # any one file
    max_files: int  # files one dispute may carry
    max_image_side: int  # longest side of a placed image, pixels (300 DPI on A4: 3508)


# Stripe's (docs/packet.md): where a network has no figures of its own
DEFAULT_LIMITS = LimitProfile("default", 49, 4_500_000, 5 * MB, 50, 3508)


@dataclass(frozen=True)
class Program:
    """A network's dispute-monitoring program, as ../shared/spec/monitoring-programs.md has it."""

    name: str
    counts: str  # what it counts, in the words a line uses
    thresholds: Schedule  # the merchant threshold by the day it took effect
    floor: int  # the fewest events a month that can name a merchant (0: none)
    fraud_reports: bool = False  # counts issuers' fraud reports (TC40) beside disputes
    last_month_denominator: bool = False  # divides by the previous month's transactions
    source: str = ""


@dataclass(frozen=True)
class Network:
    key: str
    label: str
    aliases: frozenset[str]  # brand spellings, letters only, lower case
    limits: LimitProfile  # what its disputes' evidence may be (docs/packet.md)
    reason_code: re.Pattern[str]
    prefixes: tuple[str, ...]  # the first digits of the card numbers it issues
    lengths: tuple[int, ...]  # the lengths of those numbers
    colour: str  # its line on the standing's chart
    program: Program | None = None  # None: no program counts its disputes here
    fraud_codes: frozenset[str] = field(default_factory=frozenset)  # its fraud reason codes


VISA = Network(
    key="visa",
    label="Visa",
    aliases=frozenset({"visa", "visaelectron", "electron", "vpay", "visainterlink", "interlink"}),
    limits=LimitProfile("visa", 49, 4_500_000, 5 * MB, 50, 3508),
    reason_code=re.compile(r"^1[0-3]\.\d{1,2}$"),
    prefixes=("4",),
    lengths=(16, 19),
    colour="#1a1f71",
    program=Program(
        name="Visa Acquirer Monitoring Program (VAMP)",
        counts="fraud reports and disputes",
        thresholds=(("2025-06-01", 2.2), ("2026-04-01", 1.5)),
        floor=1501,
        fraud_reports=True,
        source="Checkout.com support (global excluding MENA); Visa fee summaries",
    ),
    fraud_codes=frozenset({"10.1", "10.2", "10.3", "10.4", "10.5"}),
)
MASTERCARD = Network(
    key="mastercard",
    label="Mastercard",
    aliases=frozenset({"mastercard", "mc", "maestro", "mastercardmaestro", "eurocard", "mcard"}),
    limits=LimitProfile("mastercard", 19, 14_500_000, 14_500_000, 50, 3508),
    reason_code=re.compile(r"^4[89]\d\d$"),
    prefixes=(
        "51",
        "52",
        "53",
        "54",
        "55",
        *(str(p) for p in range(2221, 2721)),
        "50",
        "56",
        "57",
        "58",
        "639",
        "67",
    ),
    lengths=(16, 17, 18, 19),
    colour="#eb001b",
    program=Program(
        name="Mastercard Excessive Chargeback Program (ECM)",
        counts="chargebacks",
        thresholds=(("2025-01-01", 1.5),),
        floor=100,
        last_month_denominator=True,
        source="Mastercard Excessive Chargeback Program summaries (Braintree, Solidgate)",
    ),
    fraud_codes=frozenset({"4837", "4840", "4849", "4863", "4870", "4871"}),
)
AMEX = Network(
    key="amex",
    label="American Express",
    aliases=frozenset({"amex", "americanexpress", "optima"}),
    limits=LimitProfile("amex", 20, 25 * MB, 5 * MB, 5, 3508),
    reason_code=re.compile(r"^([ACMPR]\d{2}|F\d{2}|FR\d)$"),
    prefixes=("34", "37"),
    lengths=(15,),
    colour="#2e77bc",
    program=Program(name="American Express", counts="disputes", thresholds=(), floor=0),
    fraud_codes=frozenset({"F24", "F29", "F30", "F31", "FR2", "FR4", "FR6"}),
)
DISCOVER = Network(
    key="discover",
    label="Discover",
    aliases=frozenset({"discover", "discovernetwork", "novus"}),
    limits=DEFAULT_LIMITS,
    reason_code=re.compile(r"^(UA\d{2}|AA|AP|AW|CD|DP|IC|IN|LP|NF|PM|RG|RM|RN2|TF)$"),
    prefixes=("6011", "644", "645", "646", "647", "648", "649", "65"),
    lengths=(16, 17, 18, 19),
    colour="#f58220",
    program=Program(name="Discover", counts="disputes", thresholds=(), floor=0),
    fraud_codes=frozenset({"UA01", "UA02", "UA05", "UA06"}),
)
# networks no program here counts: their charges fall in no row, and the notes say so
NO_CODES = re.compile(r"^(?!)")  # their reason codes are not told apart from the others'
JCB = Network(
    key="jcb",
    label="JCB",
    aliases=frozenset({"jcb", "japancreditbureau"}),
    limits=DEFAULT_LIMITS,
    reason_code=NO_CODES,
    prefixes=tuple(str(p) for p in range(3528, 3590)),
    lengths=(16, 17, 18, 19),
    colour="#0e4c96",
)
DINERS = Network(
    key="diners",
    label="Diners Club",
    aliases=frozenset({"diners", "dinersclub", "dinersclubinternational"}),
    limits=DEFAULT_LIMITS,
    reason_code=NO_CODES,
    prefixes=("300", "301", "302", "303", "304", "305", "36", "38", "39"),
    lengths=(14, 15, 16, 17, 18, 19),
    colour="#004a97",
)
UNIONPAY = Network(
    key="unionpay",
    label="UnionPay",
    aliases=frozenset({"unionpay", "chinaunionpay"}),
    limits=DEFAULT_LIMITS,
    reason_code=NO_CODES,
    prefixes=("62",),
    lengths=(16, 17, 18, 19),
    colour="#d7000f",
)
RUPAY = Network(
    key="rupay",
    label="RuPay",
    aliases=frozenset({"rupay"}),
    limits=DEFAULT_LIMITS,
    reason_code=NO_CODES,
    prefixes=("60", "81", "82", "508"),
    lengths=(16,),
    colour="#097a44",
)

NETWORKS: tuple[Network, ...] = (VISA, MASTERCARD, AMEX, DISCOVER, JCB, DINERS, UNIONPAY, RUPAY)
BY_KEY = {n.key: n for n in NETWORKS}
# the networks a monitoring program counts here: the standing's rows, in this order
PROGRAM_NETWORKS = tuple(n.key for n in NETWORKS if n.program is not None)
FRAUD_REPORTS_COUNTED = frozenset(
    {*(n.key for n in NETWORKS if n.program and n.program.fraud_reports), ALL}
)
LAST_MONTH_DENOMINATOR = frozenset(
    n.key for n in NETWORKS if n.program and n.program.last_month_denominator
)
LABELS = {**{n.key: n.label for n in NETWORKS}, ALL: "all cards"}
COLOURS = {**{n.key: n.colour for n in NETWORKS}, ALL: "#444444"}
# the evidence limits profiles, one per network that has its own, then the default
PROFILE_NAMES: tuple[str, ...] = (
    *dict.fromkeys(n.limits.name for n in NETWORKS if n.limits != DEFAULT_LIMITS),
    DEFAULT_LIMITS.name,
)
PREFIXES = tuple((n.key, n.prefixes, n.lengths) for n in NETWORKS)
_ALIASES = {alias: n.key for n in NETWORKS for alias in n.aliases}
# the card's kind, written around its network's name ("Visa Debit", "Debit Mastercard")
_KINDS = (
    "debit",
    "credit",
    "prepaid",
    "commercial",
    "business",
    "corporate",
    "consumer",
    "classic",
    "gold",
    "platinum",
    "signature",
    "infinite",
    "world",
    "elite",
    "card",
    "cards",
    "international",
    "purchasing",
    "fleet",
    "standard",
    "premium",
)
_NOT_LETTERS = re.compile(r"[^a-z]")


def network_of(brand: object) -> str:
    """The network key of a card brand as an export writes it ('' when no record knows it):
    its letters, lower case, then without the card's kind at either end, one word at a time."""
    tried = [_NOT_LETTERS.sub("", str(brand or "").lower())]
    for key in tried:
        if key in _ALIASES:
            return _ALIASES[key]
        for kind in _KINDS:
            for shorter in (key.removeprefix(kind), key.removesuffix(kind)):
                if shorter and shorter not in tried and len(tried) < 64:
                    tried.append(shorter)
    return ""


def code_network_of(code: object) -> str:
    """The network whose reason codes look like `code` (Visa 10.4, Mastercard 4853, Amex F29,
    Discover UA02); '' when none's do."""
    text = str(code or "").strip().upper()
    return next((n.key for n in NETWORKS if text and n.reason_code.match(text)), "")


def is_fraud_code(code: object) -> bool:
    """Whether a network reason code is one of its fraud codes (Visa 10.x, Mastercard 4837...)."""
    text = str(code or "").strip().upper()
    return any(text in n.fraud_codes for n in NETWORKS)


def limits_profile(brand: object) -> str:
    """The evidence limits profile for a card brand ('default' when no record knows it)."""
    net = network_of(brand)
    return BY_KEY[net].limits.name if net else DEFAULT_LIMITS.name


def program_of(network: str) -> Program | None:
    """The program a standing row is held to (`all`, no brand known: Visa's, the strictest)."""
    found = BY_KEY.get(VISA.key if network == ALL else network)
    return found.program if found else None
