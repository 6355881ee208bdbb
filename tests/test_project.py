"""A designer's own rules project: rulecraft.toml, `--project`, the registry."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from compile_helpers import REPO, scratch_project
from rulecraft.compiler.cli import main
from rulecraft.runtime import registry
from rulecraft.runtime.config import ProjectError, find_project


@pytest.fixture(autouse=True)
def clean_registry() -> Iterator[None]:
    """Each test starts with only the bundled games known, and forgets the packages it used."""
    packages, specs, modules = list(registry.PACKAGES), dict(registry._SPECS), set(sys.modules)
    yield
    registry.PACKAGES[:] = packages
    registry._SPECS.clear()
    registry._SPECS.update(specs)
    for name in set(sys.modules) - modules:
        if not name.startswith("rulecraft."):
            del sys.modules[name]


# -- finding the project -------------------------------------------------------------------
def test_rulecraft_toml_names_the_folders_and_the_package(tmp_path: Path) -> None:
    (tmp_path / "rulecraft.toml").write_text(
        'rules = "games"\ngenerated = "src/engines"\npackage = "my_engines"\n'
    )
    (tmp_path / "games" / "x").mkdir(parents=True)
    below = tmp_path / "games" / "x"
    project = find_project(below)
    assert project.root == tmp_path.resolve()
    assert project.rules == tmp_path.resolve() / "games"
    assert project.generated_rel == Path("src/engines")
    assert project.package == "my_engines"
    assert project.games() == ["x"]


def test_pyproject_tool_rulecraft_is_a_project_and_the_repository_is_one(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.rulecraft]\n')
    project = find_project(tmp_path)
    assert (project.rules, project.package) == (tmp_path.resolve() / "rules", "generated")
    ours = find_project(REPO / "rules" / "westphalia")
    assert (ours.root, ours.package) == (REPO, "rulecraft.generated")
    assert ours.config == REPO / "pyproject.toml"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('rules = "rules"\nengines = "x"\n', "unknown key 'engines' (known: rules, generated"),
        ('package = "my-engines"\n', "package must be a dotted Python name, not 'my-engines'"),
        ("rules = 3\n", "rules must be a non-empty string, not 3"),
        ('generated = "../elsewhere"\n', "generated must be a folder inside"),
        ("rules = \n", "not valid TOML"),
    ],
)
def test_a_wrong_configuration_is_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    (tmp_path / "rulecraft.toml").write_text(text)
    with pytest.raises(ProjectError, match="rulecraft.toml"):
        find_project(tmp_path)
    assert main(["check", "--project", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rulecraft: error: ") and message in err


def test_outside_any_project_check_says_how_to_make_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 1
    assert "rulecraft init" in capsys.readouterr().err
    assert main(["--project", str(tmp_path), "check"]) == 1
    assert "is not a rulecraft project" in capsys.readouterr().err


def test_a_configured_project_compiles_into_its_folder_and_plays_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Folders named as the designer likes; the engines imported from the configured package."""
    root = scratch_project(tmp_path, "westphalia")
    (root / "rules").rename(root / "games")
    (root / "generated").rmdir()
    (root / "rulecraft.toml").write_text(
        'rules = "games"\ngenerated = "src/engines"\npackage = "westphalia_engines"\n'
    )
    edit_text = root / "games" / "westphalia" / "game.yaml"
    edit_text.write_text(edit_text.read_text().replace("title: Westphalia", "title: Westfalen"))
    monkeypatch.chdir(root / "games")
    assert main(["compile", "westphalia"]) == 0
    assert (root / "src" / "engines" / "westphalia" / "engine.py").is_file()
    assert main(["compile", "--check"]) == 0
    assert "src/engines/ is up to date" in capsys.readouterr().err
    assert main(["list", "westphalia"]) == 0
    assert capsys.readouterr().out.startswith("westphalia: Westfalen")  # not the bundled one
    spec, scenario = registry.resolve("westphalia")
    assert spec.engine.__module__ == "westphalia_engines.westphalia.engine"
    assert main(["simulate", "westphalia", "--games", "2", "--json"]) == 0
    monkeypatch.chdir(tmp_path.parent)  # outside the project: the bundled game again
    registry.PACKAGES.remove("westphalia_engines")
    registry._SPECS.clear()
    assert registry.load_spec("westphalia").title == "Westphalia"
