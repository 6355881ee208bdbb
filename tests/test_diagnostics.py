"""Diagnostics: positions, caret rendering, sorting and de-duplication."""

from __future__ import annotations

from pathlib import Path

import pytest
from rulecraft.compiler.diagnostics import (
    CompileError,
    Diagnostic,
    DiagnosticSink,
    Position,
    SourceCache,
)


def test_position_str_and_order() -> None:
    a = Position("a.yaml", 2, 5)
    assert str(a) == "a.yaml:2:5"
    assert sorted([Position("b.yaml", 1, 1), Position("a.yaml", 10, 1), a]) == [
        a,
        Position("a.yaml", 10, 1),
        Position("b.yaml", 1, 1),
    ]


def test_render_with_caret_and_hint() -> None:
    sources = SourceCache()
    sources.add("rules/x/cards.yaml", "cards:\n  move_1:\n    target: neutral_country\n")
    d = Diagnostic(
        "unknown-name",
        "unknown country 'neutral_country'",
        Position("rules/x/cards.yaml", 3, 13),
        hint="known countries: 'austria', 'france'",
    )
    assert d.render(sources) == (
        "rules/x/cards.yaml:3:13: error: unknown country 'neutral_country'\n"
        "    3 |     target: neutral_country\n"
        "      |             ^\n"
        "  hint: known countries: 'austria', 'france'"
    )


def test_render_gutter_matches_spec_shape() -> None:
    sources = SourceCache()
    sources.add("f.yaml", "\n" * 41 + "x" * 20 + "\n")
    text = Diagnostic("type", "bad", Position("f.yaml", 42, 17)).render(sources)
    lines = text.splitlines()
    assert lines[1] == "   42 | " + "x" * 20
    assert lines[2] == "      |                 ^"


def test_render_tabs_do_not_shift_caret() -> None:
    sources = SourceCache()
    sources.add("t.yaml", "a:\t\tbad value\n")
    text = Diagnostic("type", "bad", Position("t.yaml", 1, 5)).render(sources)
    src_line, caret_line = text.splitlines()[1:3]
    assert "\t" not in src_line
    caret_col = caret_line.index("^")
    assert src_line[caret_col] == "b"


def test_render_wide_characters() -> None:
    sources = SourceCache()
    sources.add("w.yaml", "名前: bad\n")
    text = Diagnostic("type", "bad", Position("w.yaml", 1, 5)).render(sources)
    src_line, caret_line = text.splitlines()[1:3]
    # two wide characters take four cells, then ": " -> the caret sits under 'b'
    assert caret_line.index("^") == src_line.index("b") + 2


def test_render_without_source_or_position() -> None:
    assert Diagnostic("io", "can't read x", None).render() == "error: can't read x"
    d = Diagnostic("schema", "m", Position("missing.yaml", 3, 1), hint="h")
    assert d.render(SourceCache()) == "missing.yaml:3:1: error: m\n  hint: h"


def test_source_cache_reads_files_relative_to_root(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "a.yaml").write_bytes(b"\xef\xbb\xbfone\r\ntwo\rthree\n")
    cache = SourceCache(tmp_path)
    assert cache.line("rules/a.yaml", 1) == "one"
    assert cache.line("rules/a.yaml", 2) == "two"
    assert cache.line("rules/a.yaml", 3) == "three"
    assert cache.line("rules/a.yaml", 9) is None
    assert cache.line("rules/none.yaml", 1) is None


def test_sink_sorted_stable_and_deduplicated() -> None:
    sink = DiagnosticSink()
    sink.error("schema", "second", Position("b.yaml", 1, 1))
    sink.error("schema", "first", Position("a.yaml", 5, 2))
    sink.error("type", "same place, added later", Position("a.yaml", 5, 2))
    sink.error("schema", "first", Position("a.yaml", 5, 2))  # duplicate
    sink.error("io", "no position", None)
    assert [d.message for d in sink.diagnostics] == [
        "second",
        "first",
        "same place, added later",
        "first",
        "no position",
    ]
    assert [d.message for d in sink.sorted()] == [
        "no position",
        "first",
        "same place, added later",
        "second",
    ]
    assert sink.has_errors
    assert sink.error_count == 5
    assert len(sink.sorted()) == 4


def test_render_all_counts() -> None:
    sink = DiagnosticSink()
    sink.sources.add("a.yaml", "x: 1\n")
    sink.error("schema", "bad x", Position("a.yaml", 1, 1))
    out = sink.render_all()
    assert out.endswith("\n1 error")
    sink.error("schema", "bad y", Position("a.yaml", 1, 4))
    sink.warning("style", "meh", Position("a.yaml", 1, 1))
    out = sink.render_all()
    assert out.splitlines()[-1] == "2 errors, 1 warning"
    assert out.index("bad x") < out.index("bad y")


def test_warnings_are_not_errors_and_raise_if_errors() -> None:
    sink = DiagnosticSink()
    sink.warning("style", "meh", None)
    assert not sink.has_errors
    sink.raise_if_errors()
    sink.error("schema", "bad", Position("a.yaml", 1, 1))
    with pytest.raises(CompileError) as info:
        sink.raise_if_errors()
    assert [d.code for d in info.value.diagnostics] == ["style", "schema"]
    assert "a.yaml:1:1: error: bad" in str(info.value)


def test_display_path(tmp_path: Path) -> None:
    sink = DiagnosticSink(root=tmp_path)
    assert sink.display_path(tmp_path / "rules" / "g" / "cards.yaml") == "rules/g/cards.yaml"
    assert sink.display_path(Path("/elsewhere/x.yaml")) == "/elsewhere/x.yaml"
