"""Reading the parts of a table from its loaded document: positions and errors, texts and
statuses (printed, assumed, gap), ranges, results, modifiers, shifts, conditions and cells."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..diagnostics import DiagnosticSink, Position
from .model import (
    TABLE_ID,
    Cell,
    Condition,
    Modifier,
    Range,
    Result,
    Shift,
    parse_range,
)

__all__ = ["PartReader"]


class PartReader:
    """Reads the parts of the tables of one document (texts, statuses, ranges, results,
    modifiers, shifts, conditions, cells), reporting problems to the sink; `TableBuilder`
    (`build.py`) reads whole tables with them."""

    def __init__(self, doc: Any, sink: DiagnosticSink, game: str | None) -> None:
        self.doc = doc
        self.sink = sink
        self.game = game

    # -- reporting -------------------------------------------------------------------------

    def pos(self, path: tuple[Any, ...]) -> Position | None:
        try:
            return self.doc.pos(path)
        except Exception:  # noqa: BLE001 - a position is best effort; never hide the error itself
            return None

    def key_pos(self, path: tuple[Any, ...]) -> Position | None:
        try:
            return self.doc.key_pos(path)
        except Exception:  # noqa: BLE001
            return self.pos(path)

    def error(
        self,
        code: str,
        message: str,
        path: tuple[Any, ...],
        hint: str | None = None,
        key: bool = False,
    ) -> None:
        self.sink.error(code, message, self.key_pos(path) if key else self.pos(path), hint)

    # -- small readers ---------------------------------------------------------------------

    def text(
        self, data: Mapping[str, Any], name: str, path: tuple[Any, ...], required: bool = False
    ) -> str | None:
        value = data.get(name)
        if value is None:
            if required:
                self.error("table-missing", f"missing '{name}'", path)
            return None
        if not isinstance(value, str):
            self.error(
                "table-type",
                f"'{name}' must be a string, not {type(value).__name__}",
                path + (name,),
                hint=f'quote it: {name}: "{value}"',
            )
            return str(value)
        return value

    def rules(self, data: Mapping[str, Any], path: tuple[Any, ...]) -> tuple[str, ...]:
        value = data.get("rules", [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error("table-type", "'rules' must be a list of rules-index ids", path + ("rules",))
            return ()
        return tuple(value)

    def status(
        self,
        data: Any,
        path: tuple[Any, ...],
        inherited: tuple[str, str | None] = ("printed", None),
    ) -> tuple[str, str | None]:
        if not isinstance(data, Mapping):
            return inherited
        assumed, gap = data.get("assumed"), data.get("gap")
        if assumed is not None and gap is not None:
            self.error("table-status", "an element cannot be both 'assumed' and a 'gap'", path)
        for name, value in (("gap", gap), ("assumed", assumed)):
            if value is None:
                continue
            if not isinstance(value, str) or not value.strip():
                self.error("table-status", f"'{name}' needs the reason as text", path + (name,))
                return name, None
            return name, value
        return inherited

    def footmarks(
        self, data: Any, path: tuple[Any, ...], known: Mapping[str, str]
    ) -> tuple[str, ...]:
        if not isinstance(data, Mapping) or "footnotes" not in data:
            return ()
        marks = data["footnotes"]
        if not isinstance(marks, list):
            self.error("table-type", "'footnotes' must be a list of marks", path + ("footnotes",))
            return ()
        for i, m in enumerate(marks):
            if str(m) not in known:
                self.error(
                    "table-footnote",
                    f"unknown footnote mark {m!r}",
                    path + ("footnotes", i),
                    hint="add it to the table's footnotes",
                )
        return tuple(str(m) for m in marks)

    def range_of(self, value: Any, path: tuple[Any, ...]) -> Range | None:
        if isinstance(value, int) and not isinstance(value, bool):
            self.error(
                "table-range",
                f"range {value} must be a quoted string",
                path,
                hint=f'write "{value}"',
            )
            return Range(value, value, str(value))
        if not isinstance(value, str):
            self.error("table-range", 'a range must be a string such as "2-4" or "7+"', path)
            return None
        parsed = parse_range(value)
        if parsed is None:
            self.error(
                "table-range",
                f"malformed range {value!r}",
                path,
                hint='write "4", "2-4", "-1 to 0", "7+" or "0 or less"',
            )
        return parsed

    def check_ranges(self, items: list[tuple[Range | None, tuple[Any, ...]]], what: str) -> None:
        """Ranges must ascend, not overlap, leave no holes; open ends only at the ends."""
        prev: Range | None = None
        for i, (rng, path) in enumerate(items):
            if rng is None:
                prev = None
                continue
            if rng.lo is None and i != 0:
                self.error(
                    "table-open-end", f"open-ended {what} {rng.text!r} is allowed only first", path
                )
            if rng.hi is None and i != len(items) - 1:
                self.error(
                    "table-open-end", f"open-ended {what} {rng.text!r} is allowed only last", path
                )
            if prev is not None and prev.hi is not None and rng.lo is not None:
                if rng.lo <= prev.hi:
                    self.error("table-overlap", f"{what} {rng.text!r} overlaps {prev.text!r}", path)
                elif rng.lo > prev.hi + 1:
                    missing = (
                        f"{prev.hi + 1}" if rng.lo == prev.hi + 2 else f"{prev.hi + 1}-{rng.lo - 1}"
                    )
                    self.error(
                        "table-hole",
                        f"no {what} covers {missing} (between {prev.text!r} and {rng.text!r})",
                        path,
                        hint="add a row with 'gap: <reason>' if it is not printed",
                    )
            elif prev is not None and (prev.hi is None or rng.lo is None):
                self.error("table-overlap", f"{what} {rng.text!r} overlaps {prev.text!r}", path)
            prev = rng

    def results(
        self, data: Any, path: tuple[Any, ...], notes: Mapping[str, str]
    ) -> dict[str, Result]:
        out: dict[str, Result] = {}
        if data is None:
            return out
        if not isinstance(data, Mapping):
            self.error("table-type", "'results' must be a mapping from result to explanation", path)
            return out
        for code, spec in data.items():
            p = path + (code,)
            spec = spec if isinstance(spec, Mapping) else {}
            status, reason = self.status(spec, p)
            effects = spec.get("effects", [])
            out[str(code)] = Result(
                code=str(code),
                label=self.text(spec, "label", p),
                text=self.text(spec, "text", p),
                effects=tuple(str(e) for e in effects) if isinstance(effects, list) else (),
                crt=bool(spec.get("crt", False)),
                shift=int(spec.get("shift", 0) or 0),
                permanent=bool(spec.get("permanent", False)),
                footnotes=self.footmarks(spec, p, notes),
                status=status,
                reason=reason,
                rules=self.rules(spec, p),
                pos=self.key_pos(p),
            )
        return out

    def modifiers(self, data: Any, path: tuple[Any, ...]) -> list[Modifier]:
        out: list[Modifier] = []
        seen: set[str] = set()
        for i, spec in enumerate(data or []):
            p = path + (i,)
            if not isinstance(spec, Mapping):
                self.error("table-type", "a modifier must be a mapping", p)
                continue
            mid = self.ident(spec.get("id"), p + ("id",), "modifier id")
            if mid in seen:
                self.error("table-duplicate", f"duplicate modifier id {mid!r}", p + ("id",))
            seen.add(mid)
            status, reason = self.status(spec, p)
            value = spec.get("value")
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                self.error("table-type", "modifier 'value' must be an integer", p + ("value",))
                value = None
            out.append(
                Modifier(
                    mid,
                    self.text(spec, "text", p, True) or "",
                    value,
                    spec.get("per"),
                    spec.get("max"),
                    spec.get("applies_to", "roll"),
                    status,
                    reason,
                    self.rules(spec, p),
                )
            )
        return out

    def shifts(self, data: Any, path: tuple[Any, ...]) -> list[Shift]:
        out: list[Shift] = []
        for i, spec in enumerate(data or []):
            p = path + (i,)
            if not isinstance(spec, Mapping):
                self.error("table-type", "a shift must be a mapping", p)
                continue
            direction = spec.get("direction")
            if direction not in ("right", "left", "either"):
                self.error(
                    "table-shift",
                    f"shift direction must be right, left or either, not {direction!r}",
                    p + ("direction",),
                )
            status, reason = self.status(spec, p)
            out.append(
                Shift(
                    self.ident(spec.get("id"), p + ("id",), "shift id"),
                    self.text(spec, "text", p, True) or "",
                    str(direction),
                    spec.get("max"),
                    spec.get("amount"),
                    status,
                    reason,
                    self.rules(spec, p),
                )
            )
        return out

    def conditions(self, data: Any, path: tuple[Any, ...]) -> list[Condition]:
        out = []
        for i, spec in enumerate(data or []):
            p = path + (i,)
            if isinstance(spec, str):
                out.append(Condition(spec))
            elif isinstance(spec, Mapping):
                status, reason = self.status(spec, p)
                out.append(
                    Condition(
                        self.text(spec, "text", p, True) or "", status, reason, self.rules(spec, p)
                    )
                )
            else:
                self.error("table-type", "a condition must be text or a mapping", p)
        return out

    def ident(self, value: Any, path: tuple[Any, ...], what: str) -> str:
        if not isinstance(value, str) or not TABLE_ID.match(value):
            self.error("table-id", f"{what} must be lower_snake_case, not {value!r}", path)
            return str(value)
        return value

    def lines(self, data: Any, path: tuple[Any, ...]) -> list[str]:
        out = []
        for i, item in enumerate(data or []):
            if isinstance(item, Mapping):
                out.append(str(item.get("text", "")))
            elif isinstance(item, str):
                out.append(item)
            else:
                self.error("table-type", "a note must be text", path + (i,))
        return out

    def cell(
        self,
        raw: Any,
        path: tuple[Any, ...],
        results: Mapping[str, Result] | None,
        inherited: tuple[str, str | None],
        keys: dict[str, Any],
        notes: Mapping[str, str],
    ) -> Cell:
        """A cell from a scalar or a mapping; results (if given) must list its result."""
        status, reason = self.status(raw, path, inherited)
        if isinstance(raw, Mapping):
            value = raw.get("result", raw.get("value"))
            marks = self.footmarks(raw, path, notes)
            note, rules = raw.get("note"), self.rules(raw, path)
        else:
            value, marks, note, rules = raw, (), None, ()
        result = None
        if status != "gap" and results is not None:
            result = results.get(str(value)) if value is not None else None
            if result is None:
                known = ", ".join(repr(k) for k in results) or "none"
                self.error(
                    "table-result",
                    f"unknown result {value!r}",
                    path,
                    hint=f"list it under 'results' (known: {known})",
                )
        return Cell(
            value,
            status,
            reason,
            result,
            footnotes=marks,
            note=note,
            rules=rules,
            keys=keys,
            pos=self.pos(path),
        )
