"""Loading YAML rules files into plain data, keeping a position for every node.

The loader reads the event stream of PyYAML's C parser (``CSafeLoader``, falling back to the
pure-Python ``SafeLoader``) and composes it itself, once: it builds the plain data (dicts in file
order, lists, str, int, float, bool, None) and, from the same events, a table from YAML path to node
marks. Composing from events rather than calling ``yaml.compose`` is what lets an alias keep the
position of the alias itself (PyYAML's composer hands back the anchored node) and lets duplicate
keys be caught at the second key.

It refuses, with an exact position, what would silently go wrong: bytes that are not UTF-8,
duplicate keys, YAML 1.1 "traps" (``yes``/``on`` as booleans, ``1:2`` as the base-60 number 62,
``010`` as octal 8, dates, ``.inf``...), merge keys, non-string keys, tags and several documents in
one file.

:meth:`Document.scalar_pos` maps an offset inside a loaded string back to the file, for every scalar
style, so errors inside embedded effect code point at the right character.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from rulecraft.runtime.files import FileReadError, read_file

from .diagnostics import DiagnosticSink, Position
from .limits import MAX_ALIAS_VALUES, MAX_NUMBER_DIGITS, MAX_YAML_DEPTH
from .scalar_map import scalar_index

__all__ = ["Document", "YPath", "load_yaml", "load_yaml_text", "format_ypath"]

YPath = tuple[str | int, ...]

_Loader: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_STR_TAG = "tag:yaml.org,2002:str"
_SEQ_TAGS = (None, "!", "tag:yaml.org,2002:seq")
_MAP_TAGS = (None, "!", "tag:yaml.org,2002:map")

# Characters YAML accepts in a stream (c-printable); used only to locate a reader error.
_NOT_PRINTABLE = re.compile(
    "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_LINE_START = re.compile("\r\n|[\r\n\x85\u2028\u2029]")

# --------------------------------------------------------------------------------------------------
# Plain scalars and the YAML 1.1 traps
# --------------------------------------------------------------------------------------------------

_SAFE_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)\Z")
_SAFE_FLOAT = re.compile(r"(?:[-+]?[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+][0-9]+)?\Z")
# Numbers in YAML 1.2's core schema that YAML 1.1 (PyYAML) leaves as text.
_YAML12_NUMBER = re.compile(
    r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
)

_QUOTE_OR_BOOL = "write true or false for a yes/no value, or quote it ({q}) if you mean text"
_QUOTE_IT = "quote it ({q}) if you mean text"

# Trap kinds for words: what YAML 1.1 makes of them, and the value we keep so later stages see
# what the
# designer most likely meant.
_WORDS: dict[str, tuple[Any, str | None]] = {
    "true": (True, None),
    "false": (False, None),
    "null": (None, None),
    "~": (None, None),
    "": (None, None),
}
for _w in ("yes", "Yes", "YES", "on", "On", "ON", "True", "TRUE"):
    _WORDS[_w] = (True, "the boolean true")
for _w in ("no", "No", "NO", "off", "Off", "OFF", "False", "FALSE"):
    _WORDS[_w] = (False, "the boolean false")
for _w in ("y", "Y"):
    _WORDS[_w] = (_w, "the boolean true (by YAML 1.1 tools other than PyYAML)")
for _w in ("n", "N"):
    _WORDS[_w] = (_w, "the boolean false (by YAML 1.1 tools other than PyYAML)")
for _w in ("Null", "NULL"):
    _WORDS[_w] = (None, "null (nothing)")
del _w

_NUMBER_START = frozenset("0123456789+-.")
_TRAP = object()


def _describe(value: Any) -> str:
    import datetime

    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, datetime.datetime):
        return f"the timestamp {value.isoformat()}"
    if isinstance(value, datetime.date):
        return f"the date {value.isoformat()}"
    if isinstance(value, float):
        if value != value:
            return "the float 'not a number'"
        if value in (float("inf"), float("-inf")):
            return f"the float {'minus ' if value < 0 else ''}infinity"
        return f"the number {value!r}"
    if isinstance(value, int):
        return f"the number {value}"
    return repr(value)


def _classify_plain(text: str) -> tuple[Any, str | None]:
    """Resolve a plain scalar: (value, None), or (value kept, message) for a YAML 1.1 trap."""
    word = _WORDS.get(text)
    if word is not None:
        value, meaning = word
        if meaning is None:
            return value, None
        q = repr(text)
        how = _QUOTE_OR_BOOL if meaning != "null (nothing)" else "write null, or quote it ({q})"
        return value, f"YAML 1.1 reads {text} as {meaning}; " + how.format(q=q)
    if text[0] not in _NUMBER_START:
        return text, None
    if _SAFE_INT.match(text):
        return int(text), None
    if _SAFE_FLOAT.match(text):
        return float(text), None
    # Slow path, rare: ask PyYAML's own YAML 1.1 resolver what it would have made of the text.
    tag = yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False))
    q = repr(text)
    if tag != _STR_TAG:
        try:
            made = yaml.constructor.SafeConstructor().construct_object(yaml.ScalarNode(tag, text))
        except Exception:  # pragma: no cover - defensive: any value PyYAML can't build
            made = None
        what = _describe(made) if made is not None else tag.rsplit(":", 1)[-1]
        if tag.endswith(":int") or tag.endswith(":float"):
            if ":" in text:
                what += " (base 60)"
            elif "_" in text:
                what += " (underscores ignored)"
            elif text.lstrip("+-").startswith(("0x", "0b")):
                pass
            elif tag.endswith(":int") and text.lstrip("+-").startswith("0"):
                what += " (octal)"
        return text, f"YAML 1.1 reads {text} as {what}; {_QUOTE_IT.format(q=q)}"
    if _YAML12_NUMBER.match(text):
        return text, (
            f"YAML 1.1 reads {text} as the text {q}, not a number; "
            f"write the number plainly (like 100000, 1.5 or 1.0e+5), or quote it ({q}) for text"
        )
    return text, None


def _long_number(text: str) -> bool:
    """True for a plain scalar that YAML reads as a number of more than
    :data:`MAX_NUMBER_DIGITS` digits (Python refuses to convert 4,300 and more)."""
    if len(text) <= MAX_NUMBER_DIGITS or text[0] not in _NUMBER_START:
        return False
    if sum(ch.isalnum() for ch in text) <= MAX_NUMBER_DIGITS:
        return False
    tag = yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False))
    return tag.endswith((":int", ":float")) or _YAML12_NUMBER.match(text) is not None


# --------------------------------------------------------------------------------------------------
# The document
# --------------------------------------------------------------------------------------------------


class _Node:
    """Marks of one node: start, end, its key's start, its style; or an alias redirect."""

    __slots__ = ("start", "end", "key", "style", "raw", "alias_of")

    def __init__(
        self,
        start: Any,
        end: Any,
        key: Any,
        style: str | None,
        raw: str | None,
        alias_of: YPath | None = None,
    ) -> None:
        self.start = start
        self.end = end
        self.key = key
        self.style = style
        self.raw = raw
        self.alias_of = alias_of


def format_ypath(ypath: YPath) -> str:
    """A YAML path as a designer reads it: ``cards.move_1.effect`` or ``units[2].name``."""
    out = ""
    for part in ypath:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


class Document:
    """One loaded YAML file: its plain data, with positions for every node and inside scalars."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Document:
        # A loaded document never changes: models copied per scenario share it.
        return self

    def __init__(self, path: str, data: Any, text: str, nodes: dict[YPath, _Node]) -> None:
        self.path = path
        self.data = data
        self.text = text
        self._nodes = nodes
        self._line_starts: list[int] | None = None
        # scalar maps by node id: every statement of an effect asks for one (see scalar_pos)
        self._maps: dict[int, list[int] | None] = {}

    # -- positions
    # -------------------------------------------------------------------------------------

    def _lines(self) -> list[int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in _LINE_START.finditer(self.text)]
        return self._line_starts

    def index_pos(self, index: int) -> Position:
        """The position of character ``index`` (0-based) of the document's text."""
        starts = self._lines()
        line = bisect.bisect_right(starts, index) - 1
        return Position(self.path, line + 1, index - starts[line] + 1)

    def _mark_pos(self, mark: Any) -> Position:
        return Position(self.path, mark.line + 1, mark.column + 1)

    def _find(self, ypath: YPath, exact: bool = False) -> _Node | None:
        """The node at ``ypath`` (following aliases), else the nearest existing ancestor."""
        nodes = self._nodes
        ypath = tuple(ypath)
        for _ in range(64):  # bound on alias redirects
            node = nodes.get(ypath)
            if node is not None:
                return node
            for i in range(len(ypath) - 1, -1, -1):
                node = nodes.get(ypath[:i])
                if node is not None:
                    break
            else:
                return None
            if node.alias_of is None:
                return None if exact else node
            ypath = node.alias_of + ypath[i:]
        return None

    def pos(self, ypath: YPath) -> Position:
        """Start of the value node at ``ypath``; for a missing path, of its nearest ancestor."""
        node = self._find(ypath)
        if node is None:
            return Position(self.path, 1, 1)
        return self._mark_pos(node.start)

    def key_pos(self, ypath: YPath) -> Position:
        """Start of the mapping key whose value is at ``ypath`` (falls back to :meth:`pos`)."""
        node = self._nodes.get(tuple(ypath))
        if node is None or node.key is None:
            node = self._find(ypath)
            if node is None:
                return Position(self.path, 1, 1)
            if node.key is None:
                return self._mark_pos(node.start)
        return self._mark_pos(node.key)

    def end_pos(self, ypath: YPath) -> Position:
        """End of the node at ``ypath`` (the position just after it)."""
        node = self._find(ypath)
        if node is None:
            return Position(self.path, 1, 1)
        return self._mark_pos(node.end)

    def has(self, ypath: YPath) -> bool:
        """True when ``ypath`` names an existing node (paths through aliases included)."""
        cur = self.data
        for part in ypath:
            if isinstance(cur, dict):
                if part not in cur:
                    return False
                cur = cur[part]
            elif isinstance(cur, list):
                if not isinstance(part, int) or isinstance(part, bool) or not 0 <= part < len(cur):
                    return False
                cur = cur[part]
            else:
                return False
        return True

    def get(self, ypath: YPath, default: Any = None) -> Any:
        """The value at ``ypath``, or ``default`` when it does not exist."""
        if not self.has(ypath):
            return default
        cur = self.data
        for part in ypath:
            cur = cur[part]
        return cur

    def scalar_pos(self, ypath: YPath, offset: int) -> Position:
        """The file position of character ``offset`` (0-based) of the loaded string at ``ypath``.

        Exact for plain, single-quoted, double-quoted, literal and folded scalars;
        ``offset`` equal to the string's length maps just past its last character. Where the
        mapping is not certain (or the node is not a scalar), the scalar's start position is
        returned.
        """
        node = self._find(ypath, exact=True)
        if node is None:
            return self.pos(ypath)
        if node.alias_of is not None:
            return self.scalar_pos(node.alias_of, offset)
        start = self._mark_pos(node.start)
        if node.raw is None or offset < 0 or offset > len(node.raw):
            return start
        index = self._scalar_map(node)
        if index is None:
            return start
        if offset == len(node.raw):
            return self.index_pos(index[-1] + 1) if index else start
        return self.index_pos(index[offset])

    def _scalar_map(self, node: _Node) -> list[int] | None:
        """For each character of the loaded value, its index in the text; None if not certain.

        Computed once per scalar: a long effect asks for a position per statement."""
        key = id(node)
        if key not in self._maps:
            self._maps[key] = self._compute_map(node)
        return self._maps[key]

    def _compute_map(self, node: _Node) -> list[int] | None:
        if node.raw is None:
            return None
        try:
            return scalar_index(self.text, node.start.index, node.end.index, node.style, node.raw)
        except Exception:  # a style we misread: fall back to the scalar start, never crash
            return None


# --------------------------------------------------------------------------------------------------
# Composing the event stream
# --------------------------------------------------------------------------------------------------


class _Frame:
    __slots__ = (
        "is_map",
        "data",
        "path",
        "register",
        "key",
        "key_mark",
        "has_key",
        "skip",
        "first_line",
        "anchor",
        "start",
        "is_key",
        "height",
        "count",
    )

    def __init__(
        self, is_map: bool, data: Any, path: YPath, register: bool, anchor: str | None, start: Any
    ) -> None:
        self.is_map = is_map
        self.data = data
        self.path = path
        self.register = register
        self.key: Any = None
        self.key_mark: Any = None
        self.has_key = False
        self.skip = False
        self.first_line: dict[Any, int] = {}
        self.anchor = anchor
        self.start = start
        self.is_key = False
        self.height = 1  # lists and mappings nested in this one, itself included
        self.count = 0  # values composed before this one (to size an anchor)


class _Anchor:
    __slots__ = ("data", "path", "complete", "size", "height")

    def __init__(self, data: Any, path: YPath | None, complete: bool) -> None:
        self.data = data
        self.path = path
        self.complete = complete
        self.size = 1  # values an alias to it repeats
        self.height = 0  # lists and mappings nested in it


class _Composer:
    def __init__(self, text: str, display: str, sink: DiagnosticSink) -> None:
        self.text = text
        self.display = display
        self.sink = sink
        self.nodes: dict[YPath, _Node] = {}
        self.anchors: dict[str, _Anchor] = {}
        self.count = 0  # values composed, those repeated by aliases included
        self.repeated = 0  # values repeated by aliases
        self.too_many = False  # MAX_ALIAS_VALUES was reported

    def _too_deep(self, mark: Any, alias: str | None = None) -> None:
        through = f" (through the alias *{alias})" if alias else ""
        self.error(
            "limit",
            f"lists and mappings nested more than {MAX_YAML_DEPTH} deep{through}",
            mark,
            "flatten the data: give inner parts names of their own",
        )

    def pos(self, mark: Any) -> Position:
        return Position(self.display, mark.line + 1, mark.column + 1)

    def error(self, code: str, message: str, mark: Any, hint: str | None = None) -> None:
        self.sink.error(code, message, self.pos(mark), hint)

    def _long_number(self, ev: Any) -> None:
        self.error(
            "limit",
            f"a number of {len(ev.value)} characters; numbers have at most "
            f"{MAX_NUMBER_DIGITS} digits",
            ev.start_mark,
            "write a smaller number, or quote it if it is text",
        )

    def _key(self, ev: Any, frame: _Frame) -> tuple[bool, Any]:
        """Turn a key event into a key: (ok, key)."""
        cls = type(ev)
        if cls is yaml.ScalarEvent:
            raw = ev.value
            if ev.tag not in (None, "!", _STR_TAG):
                self.error(
                    "yaml-tag",
                    f"YAML tags like '{ev.tag}' are not supported",
                    ev.start_mark,
                    "remove the tag; write the value plainly or quote it",
                )
                return True, raw
            if ev.style or ev.tag is not None:
                return True, raw
            if _long_number(raw):
                self._long_number(ev)
                return True, raw
            if raw == "<<":
                self.error(
                    "yaml-merge",
                    "merge keys are not supported; use a scenario overlay",
                    ev.start_mark,
                    "write the keys out, or put the changes in a scenario that names its base",
                )
                return False, None
            value, trap = _classify_plain(raw)
            if trap is not None:
                self.error(
                    "yaml11-trap",
                    trap.replace("YAML 1.1 reads ", "YAML 1.1 reads the key ", 1),
                    ev.start_mark,
                    f"write the key in quotes: {raw!r}:",
                )
                return True, raw
            if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
                return True, value
            shown = "null" if value is None else repr(value).lower()
            self.error(
                "yaml-key",
                f"a mapping key can't be {shown}; keys are text or whole numbers",
                ev.start_mark,
                f"quote the key if you mean text: '{raw}':",
            )
            return False, None
        if cls is yaml.AliasEvent:
            anchor = self.anchors.get(ev.anchor)
            if anchor is not None and (
                isinstance(anchor.data, str)
                or (isinstance(anchor.data, int) and not isinstance(anchor.data, bool))
            ):
                return True, anchor.data
            self.error(
                "yaml-key",
                "a mapping key must be text or a whole number, not an alias",
                ev.start_mark,
            )
            return False, None
        self.error(
            "yaml-key",
            "a mapping key must be text or a whole number, not a "
            + ("list" if cls is yaml.SequenceStartEvent else "mapping"),
            ev.start_mark,
            "YAML complex keys ('? ...') are not supported",
        )
        return False, None

    def compose(self, get_event: Callable[[], Any]) -> tuple[bool, Any]:
        """Compose one document from the event stream; returns (found a document, data)."""
        ev = get_event()  # StreamStart
        ev = get_event()
        if type(ev) is yaml.StreamEndEvent:
            self.nodes[()] = _Node(ev.start_mark, ev.end_mark, None, None, None)
            return False, None
        # DocumentStart
        stack: list[_Frame] = []
        root: list[Any] = []
        nodes = self.nodes
        ScalarEvent, AliasEvent = yaml.ScalarEvent, yaml.AliasEvent
        MappingStartEvent, SequenceStartEvent = yaml.MappingStartEvent, yaml.SequenceStartEvent
        while True:
            ev = get_event()
            cls = type(ev)
            if cls is yaml.MappingEndEvent or cls is yaml.SequenceEndEvent:
                frame = stack.pop()
                if frame.register:
                    node = nodes.get(frame.path)
                    if node is not None:
                        node.end = ev.end_mark
                if frame.anchor is not None:
                    done = self.anchors[frame.anchor]
                    done.complete = True
                    done.size = self.count - frame.count
                    done.height = frame.height
                if frame.is_key:
                    continue
                value = frame.data
                height = frame.height
            elif cls is yaml.DocumentEndEvent:
                break
            else:
                # Where does this node go?
                if stack:
                    parent = stack[-1]
                    if parent.is_map and not parent.has_key:
                        ok, key = self._key(ev, parent)
                        parent.has_key = True
                        parent.key_mark = ev.start_mark
                        if not ok:
                            parent.skip = True
                        elif key in parent.first_line:
                            self.error(
                                "duplicate-key",
                                f"duplicate key {key!r}: it is already set at line "
                                f"{parent.first_line[key]}",
                                ev.start_mark,
                                "remove one of the two, or rename it",
                            )
                            parent.skip = True
                        else:
                            parent.first_line[key] = ev.start_mark.line + 1
                            parent.key = key
                        if cls is MappingStartEvent or cls is SequenceStartEvent:
                            # a complex key: consume it without keeping it
                            stack.append(
                                _Frame(
                                    cls is MappingStartEvent, None, (), False, None, ev.start_mark
                                )
                            )
                            stack[-1].is_key = True
                        continue
                    register = parent.register and not parent.skip
                    if parent.is_map:
                        path = parent.path + (parent.key,)
                        key_mark = parent.key_mark
                    else:
                        path = parent.path + (len(parent.data),) if parent.data is not None else ()
                        key_mark = None
                else:
                    register = True
                    path = ()
                    key_mark = None
                height = 0
                self.count += 1
                if cls is ScalarEvent:
                    raw = ev.value
                    style = ev.style
                    tag = ev.tag
                    if not style and tag is None and _long_number(raw):
                        self._long_number(ev)
                        value = 0
                    elif not style and tag is None:
                        value, trap = _classify_plain(raw)
                        if trap is not None:
                            self.error(
                                "yaml11-trap",
                                trap,
                                ev.start_mark,
                                "YAML 1.1 (used by PyYAML and many editors) converts unquoted "
                                "words and numbers like this one",
                            )
                    else:
                        value = raw
                        if tag not in (None, "!", _STR_TAG):
                            self.error(
                                "yaml-tag",
                                f"YAML tags like '{tag}' are not supported",
                                ev.start_mark,
                                "remove the tag; write the value plainly or quote it",
                            )
                    if register:
                        nodes[path] = _Node(ev.start_mark, ev.end_mark, key_mark, style or "", raw)
                    if ev.anchor is not None:
                        self.anchors[ev.anchor] = _Anchor(value, path if register else None, True)
                elif cls is AliasEvent:
                    anchor = self.anchors.get(ev.anchor)
                    if anchor is None:
                        self.error(
                            "yaml-alias",
                            f"unknown alias '*{ev.anchor}': no anchor "
                            f"'&{ev.anchor}' is defined before it",
                            ev.start_mark,
                            "define the anchor (&name) earlier in the file",
                        )
                        value = None
                    elif not anchor.complete:
                        self.error(
                            "yaml-alias",
                            f"alias '*{ev.anchor}' refers to a node that contains it",
                            ev.start_mark,
                        )
                        value = None
                    else:
                        value = anchor.data
                        height = anchor.height
                        self.count += anchor.size - 1
                        self.repeated += anchor.size
                        if len(stack) + height > MAX_YAML_DEPTH:
                            if not stack or stack[-1].data is not None:
                                self._too_deep(ev.start_mark, ev.anchor)
                            value = None
                        elif self.repeated > MAX_ALIAS_VALUES:
                            if not self.too_many:
                                self.too_many = True
                                self.error(
                                    "limit",
                                    f"aliases repeat more than {MAX_ALIAS_VALUES:,} values in "
                                    "this file",
                                    ev.start_mark,
                                    "aliases of aliases multiply: write the data out, or "
                                    "alias smaller parts",
                                )
                            value = None
                    if register:
                        nodes[path] = _Node(
                            ev.start_mark,
                            ev.end_mark,
                            key_mark,
                            None,
                            None,
                            anchor.path if anchor is not None and anchor.complete else None,
                        )
                elif cls is MappingStartEvent or cls is SequenceStartEvent:
                    is_map = cls is MappingStartEvent
                    if ev.tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
                        self.error(
                            "yaml-tag",
                            f"YAML tags like '{ev.tag}' are not supported",
                            ev.start_mark,
                            "remove the tag",
                        )
                    data: Any = {} if is_map else []
                    if len(stack) >= MAX_YAML_DEPTH:
                        # kept out of the data, its contents only read through
                        if stack[-1].data is not None:
                            self._too_deep(ev.start_mark)
                        data = None
                        register = False
                    if register:
                        nodes[path] = _Node(ev.start_mark, ev.end_mark, key_mark, None, None)
                    if ev.anchor is not None:
                        self.anchors[ev.anchor] = _Anchor(data, path if register else None, False)
                    frame = _Frame(is_map, data, path, register, ev.anchor, ev.start_mark)
                    frame.count = self.count - 1
                    stack.append(frame)
                    continue
                else:  # pragma: no cover - the parser yields no other event here
                    continue
            # Attach the finished value to its parent.
            if not stack:
                root.append(value)
                continue
            parent = stack[-1]
            parent.height = max(parent.height, height + 1)
            if parent.is_map:
                if not parent.skip and parent.data is not None:
                    parent.data[parent.key] = value
                parent.has_key = False
                parent.skip = False
            elif parent.data is not None and not parent.skip:
                parent.data.append(value)
        return True, root[0] if root else None


def _friendly_problem(problem: str | None) -> tuple[str, str | None]:
    """PyYAML's problem text as a designer-friendly message, with a hint for usual causes."""
    p = (problem or "invalid YAML").strip()
    table = [
        (
            "mapping values are not allowed",
            "a ':' followed by a space is not allowed here",
            "quote the text if it contains ': ', or check the indentation",
        ),
        (
            "found character that cannot start any token",
            "this character can't start a value",
            "tabs can't be used for indentation in YAML; use spaces (or quote the text)",
        ),
        (
            "found unexpected end of stream",
            "the file ended before this was closed",
            "close the quote or bracket",
        ),
        (
            "found unknown escape character",
            "unknown escape sequence in a double-quoted string",
            "write \\\\ for a backslash, or use single quotes",
        ),
        (
            "could not find expected ':'",
            "expected ':' after a key",
            "is a quote or a bracket left open above?",
        ),
        (
            "did not find expected key",
            "this line does not fit the mapping around it",
            "check the indentation, and that every key ends with ':'",
        ),
        (
            "did not find expected '-' indicator",
            "this line does not fit the list around it",
            "check the indentation, and that every item starts with '- '",
        ),
        ("found a tab character", "a tab character is not allowed here", "use spaces"),
    ]
    for needle, message, hint in table:
        if p.startswith(needle):
            return message, hint
    return p, None


def load_yaml_text(
    text_or_bytes: str | bytes, display_path: str, sink: DiagnosticSink
) -> Document | None:
    """Load YAML text (or UTF-8 bytes) shown to the designer as ``display_path``.

    Problems go to ``sink``; returns None when the file can't be loaded at all (bad encoding,
    syntax errors). Problems in a loadable file (duplicate keys, YAML 1.1 traps...) are reported
    and a Document is still returned, so later stages can report their errors in the same run.
    """
    if isinstance(text_or_bytes, bytes):
        data = text_or_bytes
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            _report_not_utf8(data, exc, display_path, sink)
            return None
    else:
        text = text_or_bytes
    if text.startswith("\ufeff"):
        text = text[1:]
    sink.sources.add(display_path, text)

    loader = _Loader(text)
    composer = _Composer(text, display_path, sink)
    try:
        found, data = composer.compose(loader.get_event)
        if found:
            ev = loader.get_event()
            if type(ev) is not yaml.StreamEndEvent:
                sink.error(
                    "yaml-multidoc",
                    "a rules file holds one YAML document; this starts another",
                    composer.pos(ev.start_mark),
                    "remove the '---' line, or split the file in two",
                )
                return None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message, hint = _friendly_problem(exc.problem)
        if exc.context and exc.context_mark is not None:
            message += f" ({exc.context} that started at line {exc.context_mark.line + 1})"
        pos = composer.pos(mark) if mark is not None else Position(display_path, 1, 1)
        sink.error("yaml-syntax", message, pos, hint)
        return None
    except yaml.YAMLError as exc:
        match = _NOT_PRINTABLE.search(text)
        if match is not None:
            doc = Document(display_path, None, text, {})
            pos = doc.index_pos(match.start())
            message = f"the character U+{ord(match.group()):04X} is not allowed in YAML"
        else:
            pos = Position(display_path, 1, 1)
            message = str(getattr(exc, "reason", None) or exc).strip()
        sink.error(
            "yaml-syntax",
            message,
            pos,
            "delete it, or write it as an escape in a double-quoted string",
        )
        return None
    finally:
        loader.dispose()
    return Document(display_path, data, text, composer.nodes)


def _report_not_utf8(
    data: bytes, exc: UnicodeDecodeError, display: str, sink: DiagnosticSink
) -> None:
    bad = exc.start
    prefix = data[:bad].decode("utf-8")
    if prefix.startswith("\ufeff"):
        prefix = prefix[1:]
    starts = [0] + [m.end() for m in _LINE_START.finditer(prefix)]
    line = len(starts)
    col = len(prefix) - starts[-1] + 1
    byte = data[bad]
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        message = "the file is UTF-16, not UTF-8"
        hint = "save the file as UTF-8"
    else:
        message = f"the file is not valid UTF-8 (byte 0x{byte:02x})"
        try:
            guess = data[bad : bad + 1].decode("cp1252")
            hint = f"save the file as UTF-8 (in Windows-1252 this byte is {guess!r})"
        except UnicodeDecodeError:
            hint = "save the file as UTF-8"
    sink.sources.add(display, data.decode("utf-8", errors="replace").removeprefix("\ufeff"))
    sink.error("not-utf8", message, Position(display, line, col), hint)


def load_yaml(path: Path, display_path: str, sink: DiagnosticSink) -> Document | None:
    """Read and load the YAML file at ``path`` (see :func:`load_yaml_text`)."""
    try:
        data = read_file(path)
    except FileReadError as exc:
        sink.error("io", f"can't read {display_path}: {exc.why}", None)
        return None
    return load_yaml_text(data, display_path, sink)
