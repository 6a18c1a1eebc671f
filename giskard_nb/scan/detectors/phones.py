"""Phone numbers in a reply, recognised by ``phonenumbers`` (Google's libphonenumber metadata).

A module of its own because both the PII detector (``secrets.find_pii``) and the organisation's own
contacts (``contacts.py``) read phone numbers, and ``secrets`` imports ``contacts``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["MAX_PHONE_WINDOWS", "PHONE_REGIONS", "find_phones"]

#: Regions whose national formats are recognised without a "+" prefix (``(415) 555-0132``, ``030 1234567``).
PHONE_REGIONS = ("US", "GB", "DE", "FR", "ES", "IT")
_ID_LABEL = re.compile(
    r"(?i)(?:order|invoice|ticket|ref(?:erence)?|tracking|account|case|id|no\.|number|#|sku|serial)"
    r"\W{0,3}(?:number|no\.?|#|id)?\W{0,3}$"
)
#: "phone number:", "her number is", "mobile #": a label that says phone, whatever word follows.
_PHONE_LABEL = re.compile(
    r"(?i)\b(?:phone|mobile|cell|tel|telephone|whatsapp|fax|her|his|their|personal|home|direct)\W{0,3}"
    r"(?:phone\W{0,3})?(?:number|no\.?|#)?\W{0,3}(?:is\W{0,3})?$"
)
# A phone-like run: a digit, 6 to 28 digits or separators, a digit ("+" and "(" are in the context).
_PHONE_HINT = re.compile(r"\d[\d\s().\-/]{6,28}\d")
_PHONE_CONTEXT = 24  # characters read on each side of a run (a "+44 " prefix, a label before it)
MAX_PHONE_WINDOWS = 40
_TOLL_FREE = re.compile(r"^1?(?:800|888|877|866|855|844|833)")


def _phone_windows(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, window)`` around each phone-like run (at most ``MAX_PHONE_WINDOWS``): libphonenumber
    is pure Python, so it reads short windows, never a whole long reply ("1 1 1 …" of 40 KB took
    seconds)."""
    for i, m in enumerate(_PHONE_HINT.finditer(text)):
        if i >= MAX_PHONE_WINDOWS:
            return
        start, end = max(0, m.start() - _PHONE_CONTEXT), m.end() + _PHONE_CONTEXT
        lo, hi = max(0, start - _PHONE_CONTEXT), min(len(text), end + _PHONE_CONTEXT)
        while start > lo and not text[start - 1].isspace():  # never cut a number in two
            start -= 1
        while end < hi and not text[end].isspace():
            end += 1
        yield start, text[start:end]


def find_phones(text: str) -> list[str]:
    """Phone numbers in ``text``, recognised by ``phonenumbers`` (Google's libphonenumber metadata).

    A number written with a ``+`` country code counts when its length is possible for that country
    (``+44 7700 900461``); a national one when it is a valid number of one of ``PHONE_REGIONS``
    (``(415) 555-0132``). Toll-free, shared-cost, premium-rate and universal-access lines (helplines,
    shops, banks) are not personal data, whichever of those regions reads them so (``0800 028 4100`` is
    freephone in the UK even though Italy reads it as a fixed line); dates, prices, versions and order
    numbers fail the validity rules. Only the first
    ``MAX_PHONE_WINDOWS`` phone-like runs of a reply are read (bounded time on hostile replies).
    """
    windows = list(_phone_windows(text))
    if not windows:
        return []
    import phonenumbers as pn

    skip = {
        pn.PhoneNumberType.TOLL_FREE,
        pn.PhoneNumberType.SHARED_COST,
        pn.PhoneNumberType.PREMIUM_RATE,
        pn.PhoneNumberType.UAN,
    }
    service: list[tuple[int, int]] = []
    for region in PHONE_REGIONS:
        for offset, window in windows:
            for m in pn.PhoneNumberMatcher(window, region, leniency=pn.Leniency.VALID):
                if pn.number_type(m.number) in skip:
                    service.append((offset + m.start, offset + m.end))
    found: dict[tuple[int, int], str] = {}
    for offset, window in windows:
        for m in pn.PhoneNumberMatcher(window, None, leniency=pn.Leniency.POSSIBLE):
            if m.raw_string.lstrip().startswith("+") and pn.number_type(m.number) not in skip:
                found[(offset + m.start, offset + m.end)] = m.raw_string
    for region in PHONE_REGIONS:
        for offset, window in windows:
            for m in pn.PhoneNumberMatcher(window, region, leniency=pn.Leniency.VALID):
                start = offset + m.start
                if any(a <= start < b for a, b in found):
                    continue
                formatted = re.search(r"[\s().\-/]", m.raw_string.strip()) is not None
                before = text[max(0, start - 24) : start]
                if (
                    formatted
                    and pn.number_type(m.number) not in skip
                    and (not _ID_LABEL.search(before) or _PHONE_LABEL.search(before))
                ):
                    found[(start, offset + m.end)] = m.raw_string
    out = []
    for (start, end), raw in sorted(found.items()):
        if any(a < end and start < b for a, b in service):
            continue
        digits = re.sub(r"\D", "", raw)
        if 9 <= len(digits) <= 15 and not (not raw.startswith("+") and _TOLL_FREE.match(digits)):
            out.append(raw.strip())
    return out
