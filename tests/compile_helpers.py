"""Helpers for compiler tests: a scratch copy of a game to break on purpose."""

from __future__ import annotations

import shutil
from pathlib import Path

from rulecraft.compiler.diagnostics import Diagnostic
from rulecraft.compiler.project import compile_project, new_sink

REPO = Path(__file__).resolve().parent.parent
# The rulebooks and the rules index: shared/ beside the checkout (as in CI), else /work/shared.
SHARED = REPO.parent / "shared"
if not (SHARED / "rules-index").is_dir():
    SHARED = Path("/work/shared")
GAME_FILES = (
    "game.yaml",
    "rules.yaml",
    "cards.yaml",
    "flow.yaml",
    "scenarios",
    "examples",
    "tables",
)


def rules_index(game: str) -> dict[str, dict]:
    """The rules-index items of a game, by id (shared/rules-index/<game>.yaml)."""
    import yaml

    path = SHARED / "rules-index" / f"{game}.yaml"
    items = yaml.safe_load(path.read_text(encoding="utf-8"))["items"]
    return {item["id"]: item for item in items}


def game_tables(game: str) -> dict:
    """The compiled tables of rules/<game>/tables, failing on any diagnostic."""
    from rulecraft.compiler.diagnostics import DiagnosticSink
    from rulecraft.compiler.tables import load_tables

    sink = DiagnosticSink(root=REPO)
    loaded = load_tables(REPO / "rules" / game, sink)
    assert not sink.has_errors, sink.render_all()
    return loaded


def scratch_project(tmp_path: Path, game: str = "march_of_progress") -> Path:
    """A project in ``tmp_path`` with a copy of one game's rules."""
    src = REPO / "rules" / game
    dst = tmp_path / "rules" / game
    dst.mkdir(parents=True)
    for name in GAME_FILES:
        path = src / name
        if path.is_dir():
            shutil.copytree(path, dst / name)
        elif path.exists():
            shutil.copy(path, dst / name)
    (tmp_path / "generated").mkdir()
    return tmp_path


def edit(root: Path, rel: str, old: str, new: str, game: str = "march_of_progress") -> None:
    """Replace the one occurrence of ``old`` in a rules file."""
    path = root / "rules" / game / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {rel}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_col(root: Path, rel: str, needle: str, game: str = "march_of_progress") -> tuple[int, int]:
    """1-based line and column of the first occurrence of ``needle`` in a rules file."""
    text = (root / "rules" / game / rel).read_text(encoding="utf-8")
    i = text.index(needle)
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return line, col


def compile_errors(root: Path, generate: bool = False) -> list[Diagnostic]:
    sink = new_sink(root)
    compile_project(root, sink, generate=generate)
    return sink.sorted()
