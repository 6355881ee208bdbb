"""Helpers for compiler tests: a scratch copy of a game to break on purpose, and a game
compiled into a scratch project and imported from there."""

from __future__ import annotations

import importlib.util
import itertools
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from rulecraft.compiler.diagnostics import Diagnostic
from rulecraft.compiler.project import compile_project, new_sink

REPO = Path(__file__).resolve().parent.parent
# The rulebooks and the rules index: shared/ beside the checkout (CI always has it). Tests that
# compare with them are skipped, with this reason, in a clone without it.
SHARED = REPO.parent / "shared"
HAVE_SHARED = (SHARED / "rules-index").is_dir() and (SHARED / "rulebooks").is_dir()
NO_SHARED = (
    f"needs the rulebook transcriptions in {SHARED} (../shared beside the checkout; CI has them)"
)


def need_shared() -> None:
    """Skip the calling test (or module) when ../shared is not beside the checkout."""
    import pytest

    if not HAVE_SHARED:
        pytest.skip(NO_SHARED, allow_module_level=True)


GAME_FILES = (
    "game.yaml",
    "rules.yaml",
    "cards.yaml",
    "flow.yaml",
    "board.yaml",
    "scenarios",
    "examples",
    "tables",
)


def rules_index(game: str) -> dict[str, dict]:
    """The rules-index items of a game, by id (shared/rules-index/<game>.yaml); skips the
    test when ../shared is not there."""
    import yaml

    need_shared()
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


def fixture_errors(
    root: Path, fixture: Path, old: str, new: str, file: str = "rules.yaml"
) -> tuple[list[Diagnostic], list[str]]:
    """A project in ``root`` holding a copy of the fixture game ``fixture`` (without its
    examples) with ``old`` replaced by ``new`` in ``file``: the errors it has (at least
    one) and the edited file's lines, to find an error's line in."""
    (root / "rules").mkdir()
    (root / "generated").mkdir()
    game = root / "rules" / fixture.name
    shutil.copytree(fixture, game, ignore=shutil.ignore_patterns("examples"))
    path = game / file
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    errors = compile_errors(root)
    assert errors
    return errors, text.split("\n")


def compile_into(root: Path) -> dict[str, object]:
    """Compile every game of the project ``root`` and write ``root/generated``; returns the
    checked games by ``game/scenario`` (fails on any diagnostic)."""
    sink = new_sink(root)
    result = compile_project(root, sink)
    assert not sink.has_errors, sink.render_all()
    from rulecraft.compiler.project import write_outputs

    write_outputs(root, result.outputs)
    return result.games


_PACKAGES = itertools.count()


def import_generated(root: Path, game: str, register: bool = False) -> ModuleType:
    """Import ``root/generated/<game>/`` (one engine module and one module per scenario,
    which import each other relatively) as a package of its own name; its scenario modules
    are attributes of the package's ``SPECS``, and ``sys.modules[package.__name__ + ".<id>"]``.

    Importing a scenario module registers its spec by name; unless ``register``, the
    registry is put back as it was, so that a scratch copy of a compiled game does not
    answer for the game in later tests."""
    from rulecraft.runtime import registry

    folder = root / "generated" / game
    name = f"_rulecraft_test_{game}_{next(_PACKAGES)}"
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    saved = dict(registry._SPECS)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
    except BaseException:
        for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
            del sys.modules[key]
        raise
    finally:
        if not register:
            registry._SPECS.clear()
            registry._SPECS.update(saved)
    return package


def scenario_module(package: ModuleType, scenario: str) -> ModuleType:
    """The module of one scenario of a package from :func:`import_generated`."""
    return sys.modules[f"{package.__name__}.{scenario}"]


#: scratch projects of fixture games, kept for the whole test process
_FIXTURE_DIRS: list[Any] = []


def fixture_game(name: str) -> tuple[Path, ModuleType]:
    """The fixture game ``tests/fixtures/games/<name>/`` compiled by the real pipeline into a
    scratch project (kept until the test process ends): its root and its generated package."""
    import tempfile

    scratch = tempfile.TemporaryDirectory(prefix=f"rulecraft-{name}-")
    _FIXTURE_DIRS.append(scratch)
    root = Path(scratch.name)
    (root / "rules").mkdir()
    (root / "generated").mkdir()
    shutil.copytree(
        Path(__file__).resolve().parent / "fixtures" / "games" / name, root / "rules" / name
    )
    compile_into(root)
    return root, import_generated(root, name)
