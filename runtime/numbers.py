"""Numbers typed by people (an offer's amount, an allocation's points, a reported value):
ASCII digits only, and few enough of them that the number is cheap to hold and to use.

``str.isdigit`` accepts ``'²'`` and ``'①'``, which ``int`` then refuses with a ValueError,
and ``int`` of 5,000 digits is refused too (Python's limit on converting long strings); a
number of a million points is parsed in no time but then builds a million-element split.
Here every such text is simply not a number, and the caller says what it expected."""

from __future__ import annotations

__all__ = ["MAX_DIGITS", "parse_int"]

#: the most digits a typed number may have (a quadrillion is more than any count in a game)
MAX_DIGITS = 15


def parse_int(text: str, signed: bool = False, digits: int = MAX_DIGITS) -> int | None:
    """The whole number ``text`` writes in ASCII digits (with ``signed``, one leading ``-``
    allowed), at most ``digits`` of them; None for anything else."""
    body = text[1:] if signed and text.startswith("-") else text
    if not body or len(body) > digits or not (body.isascii() and body.isdigit()):
        return None
    return int(text)
