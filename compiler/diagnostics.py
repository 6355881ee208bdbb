"""Diagnostics: positions in the designer's files, structured errors and their rendering.

Every compiler stage reports problems through a :class:`DiagnosticSink` instead of raising, so that
a run shows every error at once. A :class:`Diagnostic` renders like a C compiler's message, with the
source line and a caret under the column::

    rules/x/cards.yaml:42:17: error: unknown country 'neutral_country'
       42 |     target: neutral_country
          |             ^
      hint: known countries: 'austria', 'france'
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "did_you_mean",
    "CompileError",
    "Diagnostic",
    "DiagnosticSink",
    "Position",
    "SourceCache",
    "split_lines",
]

TAB_SIZE = 4

# The line breaks YAML (and therefore every line number we report) recognises.
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def split_lines(text: str) -> list[str]:
    """Split ``text`` into lines at the same breaks YAML counts (CRLF, CR, LF, NEL, LS, PS)."""
    return _LINE_BREAK.split(text)


@dataclass(frozen=True, order=True)
class Position:
    """A place in a designer's file: display path, 1-based line, 1-based column (in characters)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def _display_width(text: str) -> int:
    """Terminal cells taken by ``text`` (tabs expanded); wide East Asian characters count 2."""
    if text.isascii():
        return len(text)
    width = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        width += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return width


@dataclass
class Diagnostic:
    """One problem found in the rules: a stable ``code``, a message and where it is."""

    code: str
    message: str
    pos: Position | None
    severity: str = "error"
    hint: str | None = None

    def header(self) -> str:
        """The first line: ``file:line:col: severity: message``."""
        where = f"{self.pos}: " if self.pos is not None else ""
        return f"{where}{self.severity}: {self.message}"

    def render(self, sources: SourceCache | None = None) -> str:
        """Render as text: the header, the source line with a caret under the column, then the hint.

        Tabs in the source line are expanded the same way before and under the caret, so they never
        shift it.
        """
        out = [self.header()]
        if self.pos is not None and sources is not None:
            src = sources.line(self.pos.file, self.pos.line)
            if src is not None:
                shown = src.expandtabs(TAB_SIZE).rstrip()
                prefix = src[: max(self.pos.col - 1, 0)].expandtabs(TAB_SIZE)
                number = str(self.pos.line)
                gutter = max(len(number), 4)
                out.append(f" {number:>{gutter}} | {shown}")
                out.append(f" {'':>{gutter}} | {' ' * _display_width(prefix)}^")
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


class SourceCache:
    """Source text of the designer's files, read once, for printing source lines under diagnostics.

    Files are looked up by display path (relative to ``root`` when given). The loader seeds the
    cache with the exact text it parsed (:meth:`add`), so the caret line always matches the
    reported column.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.root = root
        self._lines: dict[str, list[str] | None] = {}

    def add(self, file: str, text: str) -> None:
        """Remember ``text`` as the content of ``file`` (replacing anything read before)."""
        self._lines[file] = split_lines(text)

    def _load(self, file: str) -> list[str] | None:
        path = Path(file)
        if self.root is not None and not path.is_absolute():
            path = self.root / path
        try:
            data = path.read_bytes()
        except OSError:
            return None
        text = data.decode("utf-8", errors="replace")
        if text.startswith("\ufeff"):
            text = text[1:]
        return split_lines(text)

    def line(self, file: str, line: int) -> str | None:
        """The text of 1-based ``line`` of ``file`` without its line break, or None if unknown."""
        if file not in self._lines:
            self._lines[file] = self._load(file)
        lines = self._lines[file]
        if lines is None or not 1 <= line <= len(lines):
            return None
        return lines[line - 1]


class CompileError(Exception):
    """Raised at the end of a stage (or of the run) when errors were reported."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(d.header() for d in self.diagnostics))


class DiagnosticSink:
    """Collects the diagnostics of a run; stages add and go on, so every error shows at once."""

    def __init__(self, sources: SourceCache | None = None, root: Path | None = None) -> None:
        self.root = root
        self.sources = sources if sources is not None else SourceCache(root)
        self._diagnostics: list[Diagnostic] = []

    def add(self, diagnostic: Diagnostic) -> None:
        """Add a ready-made diagnostic."""
        self._diagnostics.append(diagnostic)

    def error(self, code: str, message: str, pos: Position | None, hint: str | None = None) -> None:
        """Report an error of kind ``code`` at ``pos``."""
        self._diagnostics.append(Diagnostic(code, message, pos, "error", hint))

    def warning(
        self, code: str, message: str, pos: Position | None, hint: str | None = None
    ) -> None:
        """Report a warning (does not make :attr:`has_errors` true)."""
        self._diagnostics.append(Diagnostic(code, message, pos, "warning", hint))

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """All diagnostics, in the order they were added."""
        return list(self._diagnostics)

    @property
    def has_errors(self) -> bool:
        """True when at least one diagnostic is an error."""
        return any(d.severity == "error" for d in self._diagnostics)

    @property
    def error_count(self) -> int:
        """Number of errors reported so far (duplicates included), to see if a step added any."""
        return sum(1 for d in self._diagnostics if d.severity == "error")

    def display_path(self, path: Path) -> str:
        """The path shown to the designer: relative to ``root`` when inside it, with ``/``."""
        if self.root is not None:
            try:
                return path.resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                pass
        return path.as_posix()

    def sorted(self) -> list[Diagnostic]:
        """Diagnostics sorted by (file, line, col), stable, each (code, pos, message) once.

        Diagnostics without a position come first.
        """
        seen: set[tuple[str, Position | None, str]] = set()
        unique: list[Diagnostic] = []
        for d in self._diagnostics:
            key = (d.code, d.pos, d.message)
            if key not in seen:
                seen.add(key)
                unique.append(d)
        return sorted(unique, key=lambda d: (d.pos is not None, d.pos or Position("", 0, 0)))

    def render_all(self) -> str:
        """Every diagnostic rendered, sorted, followed by a count line such as ``2 errors``."""
        diags = self.sorted()
        parts = [d.render(self.sources) for d in diags]
        errors = sum(1 for d in diags if d.severity == "error")
        warnings = len(diags) - errors
        count = f"{errors} error{'' if errors == 1 else 's'}"
        if warnings:
            count += f", {warnings} warning{'' if warnings == 1 else 's'}"
        parts.append(count)
        return "\n".join(parts)

    def raise_if_errors(self) -> None:
        """Raise :class:`CompileError` with the sorted diagnostics if any error was reported."""
        if self.has_errors:
            raise CompileError(self.sorted())


def did_you_mean(name: str, candidates: Iterable[str], cutoff: float = 0.7) -> str | None:
    """A hint for a misspelt name: ``did you mean 'x'?`` with the closest candidate, or None."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=cutoff)
    return f"did you mean {close[0]!r}?" if close else None
