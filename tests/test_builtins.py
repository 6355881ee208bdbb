"""The table of builtins: one row per builtin, read by the checker, the code generator and the
language reference."""

from __future__ import annotations

from pathlib import Path

from rulecraft.compiler.builtins import BUILTINS, DECISIONS, markdown_table, with_table
from rulecraft.compiler.builtins.__main__ import main

LANGUAGE = Path(__file__).resolve().parent.parent / "docs" / "language.md"


def test_the_language_reference_lists_the_builtins_of_the_rows() -> None:
    text = LANGUAGE.read_text(encoding="utf-8")
    assert with_table(text) == text, (
        "docs/language.md's table of builtins differs from compiler/builtins; run "
        "python -m rulecraft.compiler.builtins --write docs/language.md"
    )


def test_every_builtin_has_a_row_of_the_table() -> None:
    table = markdown_table()
    for name, b in BUILTINS.items():
        assert f"| `{b.usage()}` |" in table, name


def test_check_mode_fails_on_a_stale_table(tmp_path: Path) -> None:
    stale = tmp_path / "language.md"
    text = LANGUAGE.read_text(encoding="utf-8")
    stale.write_text(text.replace("| `count(list)` |", "| `count(xs)` |"), encoding="utf-8")
    assert main([str(stale), "--check"]) == 1
    assert main([str(stale), "--write"]) == 0
    assert stale.read_text(encoding="utf-8") == text


def test_rows_are_consistent() -> None:
    for name, b in BUILTINS.items():
        # a decision stands on its own line, says how it is asked, and may stop a routine
        assert (b.decision is not None) == (name in DECISIONS) == (b.waits == "decision")
        if b.decision is not None:
            assert b.statement and b.stops
        # a builtin either gives a value in an expression or runs on its own line
        assert b.statement == (b.emit is None), name
        if b.statement and b.decision is None:
            assert b.run is not None, name
