"""Where each character of a loaded YAML scalar stands in the source text.

The loader keeps a scalar's start; an effect written in a scalar reports errors at a column of
its own text, so :func:`scalar_index` re-scans the raw text of the scalar in its style (plain,
single- or double-quoted, literal or folded block) and returns, for each character of the
loaded value, its index in the file. It returns None where the mapping is not certain: the
caller then falls back to the scalar's start.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["scalar_index"]

_BREAKS = "\r\n\x85\u2028\u2029"
_BLANKS = " \t"


def _skip_properties(text: str, i: int, end: int) -> int:
    """Skip an anchor (``&a``) and/or a tag (``!t``) before a scalar: where its text starts."""
    while i < end and text[i] in "&!":
        while i < end and text[i] not in " \t" + _BREAKS:
            i += 1
        while i < end and text[i] in " \t" + _BREAKS:
            i += 1
    return i


def _raw_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Lines of ``text[start:end]`` as (line start, content end); the last line may be empty."""
    out = []
    i = start
    while True:
        j = i
        while j < end and text[j] not in _BREAKS:
            j += 1
        out.append((i, j))
        if j >= end:
            return out
        i = j + 2 if text.startswith("\r\n", j) else j + 1


def _break_char(text: str, i: int) -> str:
    ch = text[i] if i < len(text) else "\n"
    return ch if ch in "\u2028\u2029" else "\n"


def _checked(
    chars: list[str], index: list[int], value: str, prefix_ok: bool = False
) -> list[int] | None:
    produced = "".join(chars)
    if len(produced) != len(index):
        return None
    if produced == value or (prefix_ok and produced.startswith(value)):
        return index[: len(value)]
    return None


_Piece = Callable[[int, int, list[str], list[int]], bool]


def _fold_flow(
    text: str, start: int, end: int, value: str, piece: _Piece, escapes: bool = False
) -> list[int] | None:
    """Line folding shared by plain and quoted scalars, recording where each character came from.

    Blanks around line breaks are dropped; a single break becomes a space, ``k`` empty lines
    become ``k`` newlines. ``piece(a, b, chars, index)`` appends the content of one line
    ``text[a:b]`` and returns True when the line ended with an escaped line break (double
    quotes), which joins without a space. With ``escapes``, a blank escaped by a backslash at
    the end of a line is content and is kept.
    """
    chars: list[str] = []
    index: list[int] = []
    empties: list[int] = []
    lines = _raw_lines(text, start, end)
    last = len(lines) - 1
    pending: int | None = None
    escaped = False
    for n, (a, b) in enumerate(lines):
        if n:
            while a < b and text[a] in _BLANKS:
                a += 1
        bb = b
        if n < last:
            while bb > a and text[bb - 1] in _BLANKS:
                if escapes:
                    slashes = 0
                    while bb - 2 - slashes >= a and text[bb - 2 - slashes] == "\\":
                        slashes += 1
                    if slashes % 2:
                        break
                bb -= 1
        if n and n < last and a == bb:
            empties.append(a)
            continue
        if pending is not None:
            if empties:
                for e in empties:
                    chars.append("\n")
                    index.append(e)
            elif not escaped:
                chars.append(" ")
                index.append(pending)
            empties = []
        escaped = piece(a, bb, chars, index)
        pending = b
    return _checked(chars, index, value)


def _map_plain(text: str, start: int, end: int, value: str) -> list[int] | None:
    def piece(a: int, b: int, chars: list[str], index: list[int]) -> bool:
        chars.append(text[a:b])
        index.extend(range(a, b))
        return False

    return _fold_flow(text, start, end, value, piece)


def _map_single(text: str, start: int, end: int, value: str) -> list[int] | None:
    def piece(a: int, b: int, chars: list[str], index: list[int]) -> bool:
        i = a
        while i < b:
            chars.append(text[i])
            index.append(i)
            i += 2 if text[i] == "'" else 1
        return False

    return _fold_flow(text, start + 1, end - 1, value, piece)


_SIMPLE_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _map_double(text: str, start: int, end: int, value: str) -> list[int] | None:
    def piece(a: int, b: int, chars: list[str], index: list[int]) -> bool:
        i = a
        while i < b:
            ch = text[i]
            if ch != "\\":
                chars.append(ch)
                index.append(i)
                i += 1
                continue
            if i + 1 >= b:
                return True  # a backslash ending the line escapes the break: no folding space
            esc = text[i + 1]
            if esc in _SIMPLE_ESCAPES:
                chars.append(_SIMPLE_ESCAPES[esc])
                index.append(i)
                i += 2
            elif esc in _HEX_ESCAPES:
                width = _HEX_ESCAPES[esc]
                chars.append(chr(int(text[i + 2 : i + 2 + width], 16)))
                index.append(i)
                i += 2 + width
            else:
                raise ValueError("unknown escape")
        return False

    return _fold_flow(text, start + 1, end - 1, value, piece, escapes=True)


def _block_header(text: str, start: int) -> tuple[str, int, int]:
    """Parse a block scalar header: (style char, indentation indicator, index after the line)."""
    style = text[start]
    i = start + 1
    indicator = 0
    while i < len(text) and text[i] in "+-0123456789":
        if text[i].isdigit():
            indicator = int(text[i])
        i += 1
    while i < len(text) and text[i] not in _BREAKS:
        i += 1
    if text.startswith("\r\n", i):
        i += 2
    elif i < len(text):
        i += 1
    return style, indicator, i


def _map_block(text: str, start: int, end: int, value: str) -> list[int] | None:
    style, indicator, body = _block_header(text, start)
    lines = _raw_lines(text, body, end) if body < end else []
    # The first line with content fixes the indentation (or bounds it when an indicator was given).
    first_indent = None
    for a, b in lines:
        j = a
        while j < b and text[j] == " ":
            j += 1
        if j < b:
            first_indent = j - a
            break
    if first_indent is None:
        candidates = [max(indicator, 1)]
    elif indicator:
        candidates = list(range(first_indent, 0, -1))
    else:
        candidates = [first_indent]
    for indent in candidates:
        result = _block_with_indent(text, lines, indent, style == ">", value)
        if result is not None:
            return result
    return None


def _block_with_indent(
    text: str, lines: list[tuple[int, int]], indent: int, folded: bool, value: str
) -> list[int] | None:
    """Literal or folded block content at ``indent``, with every trailing break ("keep" chomping).

    Clip and strip chomping give a prefix of that, so the result is checked as a prefix of the
    value.
    """
    chars: list[str] = []
    index: list[int] = []
    pending: int | None = None  # index of the break ending the previous content line
    prev_more = True  # the previous content line was more indented (or there was none)
    empties: list[int] = []
    for a, b in lines:
        j = a
        while j < b and j - a < indent and text[j] == " ":
            j += 1
        if j >= b:  # an empty line: nothing but (part of) the indentation
            empties.append(b)
            continue
        if j - a < indent:  # less indented: the scalar ended (e.g. a comment line after it)
            break
        more = text[j] in _BLANKS
        if pending is not None:
            if folded and not prev_more and not more:
                if empties:
                    for e in empties:
                        chars.append("\n")
                        index.append(e)
                else:
                    chars.append(" ")
                    index.append(pending)
            else:
                chars.append(_break_char(text, pending))
                index.append(pending)
                for e in empties:
                    chars.append("\n")
                    index.append(e)
        else:
            for e in empties:
                chars.append("\n")
                index.append(e)
        empties = []
        chars.append(text[j:b])
        index.extend(range(j, b))
        pending = b
        prev_more = more
    if pending is not None:
        chars.append(_break_char(text, pending))
        index.append(pending)
    for e in empties:
        chars.append("\n")
        index.append(e)
    return _checked(chars, index, value, prefix_ok=True)


_MAPPERS: dict[str, Callable[[str, int, int, str], list[int] | None]] = {
    "": _map_plain,
    "'": _map_single,
    '"': _map_double,
    "|": _map_block,
    ">": _map_block,
}


def scalar_index(
    text: str, start: int, end: int, style: str | None, value: str
) -> list[int] | None:
    """For each character of ``value``, the scalar loaded from ``text[start:end]`` in ``style``
    (``""`` plain, ``'``, ``"``, ``|``, ``>``), its index in ``text``; None if not certain."""
    mapper = _MAPPERS.get(style or "")
    if mapper is None:
        return None
    return mapper(text, _skip_properties(text, start, end), end, value)
