"""Two addresses compared as places, not as strings: Shopify writes the billing address with
the province left empty and the postcode without its space, and the shipping address with
both; a person writes "Street" where a carrier writes "St". Pure.

An address is its comma-separated parts (Address1, Address2, City, Province, Zip, Country as
the exports join them). Each part is normalised (case, punctuation and spaces ignored, common
street words abbreviated, a country name as its ISO code); two addresses are the same place
when their first lines agree and every part one gives is in the other (an empty or missing
part, such as a province one side leaves out, is no difference).
"""

from __future__ import annotations

import re

STREET_WORDS = {
    "street": "st",
    "avenue": "ave",
    "road": "rd",
    "boulevard": "blvd",
    "drive": "dr",
    "lane": "ln",
    "court": "ct",
    "place": "pl",
    "square": "sq",
    "terrace": "ter",
    "highway": "hwy",
    "parkway": "pkwy",
    "apartment": "apt",
    "suite": "ste",
    "floor": "fl",
    "north": "n",
    "south": "s",
    "east": "e",
    "west": "w",
    "saint": "st",
    "mount": "mt",
    "strasse": "str",
    "straße": "str",
}
COUNTRIES = {
    "united states": "us",
    "united states of america": "us",
    "usa": "us",
    "america": "us",
    "united kingdom": "gb",
    "uk": "gb",
    "great britain": "gb",
    "england": "gb",
    "scotland": "gb",
    "wales": "gb",
    "canada": "ca",
    "australia": "au",
    "germany": "de",
    "deutschland": "de",
    "france": "fr",
    "spain": "es",
    "españa": "es",
    "italy": "it",
    "italia": "it",
    "netherlands": "nl",
    "the netherlands": "nl",
    "ireland": "ie",
    "new zealand": "nz",
    "poland": "pl",
    "polska": "pl",
    "sweden": "se",
    "norway": "no",
    "denmark": "dk",
    "belgium": "be",
    "austria": "at",
    "switzerland": "ch",
    "portugal": "pt",
    "japan": "jp",
    "mexico": "mx",
    "brazil": "br",
    "india": "in",
}


def _part(text: str) -> str:
    low = " ".join(text.lower().replace(".", " ").split())
    if low in COUNTRIES:
        return COUNTRIES[low]
    words = [STREET_WORDS.get(w, w) for w in re.findall(r"\w+", low)]
    return "".join(words)


def place_parts(address: str) -> list[str]:
    """The address's normalised non-empty parts, in order."""
    return [p for p in (_part(x) for x in str(address or "").split(",")) if p]


def same_place(a: str, b: str) -> bool:
    """Whether two addresses name one place (see the module docstring)."""
    pa, pb = place_parts(a), place_parts(b)
    if not pa or not pb or _no_place(pa) or _no_place(pb):
        return False
    if "".join(pa) == "".join(pb):  # the same, split differently
        return True
    small, large = sorted((pa, pb), key=len)
    return pa[0] == pb[0] and set(small) <= set(large)


_CODES = frozenset(COUNTRIES.values())


def _no_place(parts: list[str]) -> bool:
    """A country alone ("IN", "India") names no place: two of them are no address match
    (issue 44 item 9); nor is an address with no street line (a first part of letters only,
    two or three of them: a country or state code)."""
    return all(p in _CODES or (p.isalpha() and len(p) <= 3) for p in parts)
