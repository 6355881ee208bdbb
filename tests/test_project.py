"""A designer's own rules project: rulecraft.toml, `--project`, the registry, `rulecraft init`."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
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


def _new(tmp_path: Path, *argv: str) -> Path:
    root = tmp_path / "race"
    assert main(["init", str(root), *argv]) == 0
    return root


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
    out = tmp_path / "w.html"
    assert main(["sheet", "westphalia", "--scenario", "congress", "-o", str(out)]) == 0
    assert "Westfalen" in out.read_text()
    monkeypatch.chdir(tmp_path.parent)  # outside the project: the bundled game again
    registry.PACKAGES.remove("westphalia_engines")
    registry._SPECS.clear()
    assert registry.load_spec("westphalia").title == "Westphalia"


# -- init and the whole flow ----------------------------------------------------------------
def test_init_writes_a_project_that_checks_compiles_tests_and_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _new(tmp_path)
    for name in [
        "rulecraft.toml",
        "README.md",
        ".github/workflows/rules.yml",
        ".vscode/settings.json",
        "schemas/scenario.schema.json",
        "rules/race/game.yaml",
        "rules/race/scenarios/first_race.yaml",
        "rules/race/examples/first_turn.yaml",
    ]:
        assert (root / name).is_file(), name
    workflow = yaml.safe_load((root / ".github" / "workflows" / "rules.yml").read_text())
    runs = "\n".join(step.get("run", "") for step in workflow["jobs"]["rules"]["steps"])
    for step in ["check", "compile --check", "test", "simulate", "sheet", "simulate --all"]:
        assert f"rulecraft {step}" in runs, step
    # the version that made it, from the project's wheels/ (rulecraft is not on PyPI yet)
    assert 'pip install --find-links wheels "rulecraft[compile,sheets]==' in runs or (
        'pip install "rulecraft[compile,sheets] @ git+' in runs
    )
    for path in (root / "rules").rglob("*.yaml"):  # a modeline that reaches the schemas
        first = path.read_text().splitlines()[0]
        schema = first.removeprefix("# yaml-language-server: $schema=")
        assert schema != first and (path.parent / schema).resolve().is_file(), path
    monkeypatch.chdir(root / "rules" / "race")  # found from below
    assert main(["check"]) == 0
    assert main(["compile"]) == 0
    assert (root / "generated" / "race" / "engine.py").is_file()
    assert main(["compile", "--check"]) == 0
    assert main(["test"]) == 0
    capsys.readouterr()
    assert main(["simulate", "race", "--games", "20", "--json"]) == 0
    assert '"games": 20' in capsys.readouterr().out
    assert main(["simulate", "race", "--games", "2", "--agents", "mc"]) == 0  # bots can guess
    assert main(["list", "race"]) == 0
    assert "race/first_race: The First Race" in capsys.readouterr().out
    assert main(["explain", "race/first_race"]) == 0
    assert "scenarios/first_race.yaml:" in capsys.readouterr().out
    assert main(["sheet", "race", "--format", "html", "-o", str(tmp_path / "race.html")]) == 0
    assert "The First Race" in (tmp_path / "race.html").read_text()
    # the bundled games stay available by name from inside the project
    assert main(["list", "westphalia"]) == 0
    assert main(["sheet", "westphalia", "--format", "html", "-o", str(tmp_path / "w.html")]) == 0
    assert main(["explain", "march_of_progress/age_of_marlborough"]) == 0


def test_compile_check_is_stale_after_an_edit_and_names_the_project_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _new(tmp_path)
    monkeypatch.chdir(tmp_path)  # outside it: --project, before or after the command
    assert main(["--project", str(root), "compile"]) == 0
    rules = root / "rules" / "race" / "rules.yaml"
    rules.write_text(rules.read_text().replace("value: 10", "value: 12"))
    capsys.readouterr()
    assert main(["compile", "--check", "--project", str(root)]) == 1
    out = capsys.readouterr()
    assert "value: 10" not in out.out and "10" in out.out and "12" in out.out
    assert "generated/ is stale" in out.err


def test_a_project_game_comes_before_a_bundled_game_of_the_same_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _new(tmp_path, "--from", "march_of_progress")
    scenario = root / "rules" / "march_of_progress" / "scenarios" / "thirty_years_war.yaml"
    scenario.write_text(
        scenario.read_text().replace("victory_vps: {value: 18", "victory_vps: {value: 7")
    )
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    assert (root / "generated" / "march_of_progress" / "thirty_years_war.py").is_file()
    spec, _ = registry.resolve("march_of_progress/thirty_years_war")
    assert spec.engine.__module__.startswith("march_of_progress_engines.")
    capsys.readouterr()
    assert main(["explain", "march_of_progress/thirty_years_war", "--json"]) == 0
    assert '"value": 7' in capsys.readouterr().out


def test_init_refuses_to_overwrite_and_an_unknown_game_to_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _new(tmp_path)
    capsys.readouterr()
    assert main(["init", str(root)]) == 1
    assert "already a project" in capsys.readouterr().err
    (tmp_path / "a" / "schemas").mkdir(parents=True)
    (tmp_path / "a" / "schemas" / "game.schema.json").write_text("{}")
    assert main(["init", str(tmp_path / "a")]) == 1
    assert "game.schema.json is already there" in capsys.readouterr().err
    assert (tmp_path / "a" / "schemas" / "game.schema.json").read_text() == "{}"
    assert not (tmp_path / "a" / "rulecraft.toml").exists()
    assert main(["init", str(tmp_path / "b"), "--from", "chess"]) == 1
    err = capsys.readouterr().err
    assert "no bundled game 'chess'" in err and "march_of_progress" in err
    assert not (tmp_path / "b" / "rulecraft.toml").exists()


def test_check_notes_schemas_of_another_rulecraft_and_init_schemas_refreshes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _new(tmp_path)
    capsys.readouterr()
    assert main(["check", "--project", str(root)]) == 0
    assert "note" not in capsys.readouterr().err
    old = root / "schemas" / "flow.schema.json"
    old.write_text(old.read_text().replace('"description"', '"title"', 1))
    assert main(["check", "--project", str(root)]) == 0
    assert "`rulecraft init --schemas` refreshes it" in capsys.readouterr().err
    assert main(["init", str(root), "--schemas"]) == 0
    assert capsys.readouterr().err == "wrote schemas/flow.schema.json\n"
    assert main(["check", "--project", str(root)]) == 0
    assert "note" not in capsys.readouterr().err


def test_init_into_a_relative_folder_names_the_game_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "My Game"]) == 0
    err = capsys.readouterr().err
    assert "wrote rules/my_game/flow.yaml\n" in err and "cd 'My Game' && rulecraft check" in err
    assert 'package = "my_game_engines"' in (tmp_path / "My Game" / "rulecraft.toml").read_text()


def test_use_project_plays_a_project_game_from_python(tmp_path: Path) -> None:
    """The README's example: the engines found from the project's rulecraft.toml."""
    root = _new(tmp_path)
    assert main(["compile", "--project", str(root)]) == 0
    from rulecraft.runtime import Game, use_project
    from rulecraft.runtime.tools.agents import make_agent

    project = use_project(root)
    assert project.package == "race_engines"
    game = Game.named("race", seed=1)
    bots = [make_agent("random", seed=n) for n in range(len(game.spec.seats))]
    while not game.finished:
        d = game.pending()[0]
        game.apply(d.player, bots[d.player].choose(game.view_state(d.player), d, game.spec))
    assert game.result["reason"] == "the goal is reached"


def test_another_project_with_the_same_package_name_replaces_the_first(tmp_path: Path) -> None:
    """Two projects whose engines are both the package race_engines, used one after the
    other in one process: the second's games are found, not the first's still imported."""
    from rulecraft.runtime import use_project
    from rulecraft.runtime.registry import load_spec

    first = _new(tmp_path / "a")
    second = _new(tmp_path / "b")
    game = second / "rules" / "race" / "game.yaml"
    game.write_text(game.read_text().replace("title: Race\n", "title: Second Race\n"))
    for root in (first, second):
        assert main(["compile", "--project", str(root)]) == 0
    use_project(first)
    assert load_spec("race").title == "Race"
    use_project(second)
    spec = load_spec("race")
    assert spec.title == "Second Race"
    assert Path(sys.modules[type(spec.engine).__module__].__file__).is_relative_to(second)
    use_project(first)  # and back
    assert load_spec("race").title == "Race"


def test_engines_generated_by_another_rulecraft_are_refused_with_recompile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A generated engine records the version and runtime interface (ABI) it was made for."""
    from rulecraft.runtime import ABI

    root = _new(tmp_path)
    assert main(["compile", "--project", str(root)]) == 0
    engine = root / "generated" / "race" / "engine.py"
    text = engine.read_text()
    assert f"ABI: Final = {ABI}\n" in text and "GENERATED_BY: Final = " in text
    text = text.replace(f"ABI: Final = {ABI}\n", f"ABI: Final = {ABI - 1}\n")
    engine.write_text(re.sub(r"GENERATED_BY: Final = .*", 'GENERATED_BY: Final = "0.0.1"', text))
    capsys.readouterr()
    assert main(["simulate", "race", "--games", "1", "--project", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("rulecraft: error: the engine of 'race'")
    assert f"generated by rulecraft 0.0.1 for runtime interface {ABI - 1}" in err
    assert f"runs interface {ABI}: run `rulecraft compile`" in err
    # and the compiler, which does not import the engines, regenerates them
    assert main(["compile", "--check", "--project", str(root)]) == 1
    assert "generated/ is stale" in capsys.readouterr().err
    assert main(["compile", "--project", str(root)]) == 0
    assert f"ABI: Final = {ABI}\n" in engine.read_text()


def test_the_step_by_step_page_works_as_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/own-game.md: its edit, its variant and its Python example (the README's)."""
    page = (REPO / "docs" / "own-game.md").read_text()
    root = tmp_path / "my-game"
    assert main(["init", str(root)]) == 0
    rules = root / "rules" / "my_game" / "rules.yaml"
    rules.write_text(rules.read_text().replace("value: 10", "value: 12"))
    [variant] = [b for b in re.findall(r"```yaml\n(.*?)```", page, re.S) if "base:" in b]
    (root / "rules" / "my_game" / "scenarios" / "long_race.yaml").write_text(variant)
    assert main(["compile", "--project", str(root)]) == 0
    capsys.readouterr()
    assert main(["explain", "my_game/long_race", "--json", "--project", str(root)]) == 0
    assert '"value": 20' in capsys.readouterr().out
    [example] = re.findall(r"```python\n(.*?)```", page, re.S)
    readme = (root / "README.md").read_text()
    assert example in readme and len(example.strip().splitlines()) <= 10


def test_play_and_coverage_work_on_a_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _new(tmp_path)
    monkeypatch.chdir(root)
    assert main(["compile"]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\nno\n"))
    assert main(["play", "race", "--seed", "1"]) == 0
    assert "Game abandoned, not saved." in capsys.readouterr().out
    # a rules index of the designer's own, in rules-index/ (the default)
    (root / "rules-index").mkdir()
    (root / "rules-index" / "race.yaml").write_text(
        "items:\n"
        "- {id: RACE-GOAL-01, kind: victory, rule: The first to the goal wins.}\n"
        "- {id: RACE-CARD-01, kind: card, rule: STEP gains a point.}\n"
    )
    example = root / "rules" / "race" / "examples" / "first_turn.yaml"
    example.write_text(example.read_text().replace("seed: 1\n", "seed: 1\nrules: [RACE-CARD-01]\n"))
    assert main(["coverage", "--missing"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"race\s+2\s+1 \(50%\)\s+1 \(50%\)", out), out  # the example names it
    assert "RACE-GOAL-01" in out


def test_coverage_counts_the_rules_index_the_project_declares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`rules_index` in rulecraft.toml names the project's own index (no ../shared needed);
    its ids named in the rules and the examples count."""
    root = _new(tmp_path)
    monkeypatch.chdir(root)
    config = root / "rulecraft.toml"
    config.write_text(config.read_text() + 'rules_index = "docs/index"\n')
    assert main(["coverage"]) == 1
    err = capsys.readouterr().err
    assert "rules_index in " in err and "no rules index at " in err and "docs/index" in err
    (root / "docs" / "index").mkdir(parents=True)
    (root / "docs" / "index" / "race.yaml").write_text(
        "items:\n"
        "- {id: RACE-GOAL-01, kind: victory, rule: The first to the goal wins.}\n"
        "- {id: RACE-CARD-01, kind: card, rule: STEP gains a point.}\n"
        "- {id: RACE-CARD-02, kind: card, rule: DASH rolls a die.}\n"
    )
    rules = root / "rules" / "race" / "rules.yaml"
    rules.write_text(
        rules.read_text().replace("    value: 10\n", "    value: 10\n    rules: [RACE-GOAL-01]\n")
    )
    example = root / "rules" / "race" / "examples" / "first_turn.yaml"
    example.write_text(example.read_text().replace("seed: 1\n", "seed: 1\nrules: [RACE-CARD-01]\n"))
    assert main(["check"]) == 0
    capsys.readouterr()
    assert main(["coverage", "--json"]) == 0
    race = json.loads(capsys.readouterr().out)["games"]["race"]
    assert (race["items"], race["encoded"], race["tested"]) == (3, 2, 1)
    assert race["untested"] == ["RACE-CARD-02", "RACE-GOAL-01"]


@pytest.mark.native
def test_compile_native_builds_a_project_package(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """mypyc compiles the engines under the project's package name, not rulecraft.generated."""
    root = _new(tmp_path)
    assert main(["compile", "--native", "--project", str(root)]) == 0
    folder = root / "generated" / "race"
    # the engine and the prelude's copy; the scenario's module is data and stays Python
    assert sorted(p.name.split(".")[0] for p in folder.glob("*.so")) == [
        "_prelude",
        "engine",
        "native__mypyc",
    ]
    assert main(["compile", "--check", "--project", str(root)]) == 0
    registry.use_project(root)
    spec = registry.load_spec("race")
    assert spec.engine.__module__ == "race_engines.race.engine"
    assert sys.modules[spec.engine.__module__].__file__.endswith(".so")
    assert main(["simulate", "race", "--games", "50", "--project", str(root)]) == 0
    assert main(["compile", "--no-native", "--project", str(root)]) == 0
    assert not list(folder.glob("*.so"))


def test_init_ci_installs_the_rulecraft_that_made_it(tmp_path: Path) -> None:
    """rulecraft is not on PyPI: `rulecraft==0.1.0` alone finds nothing. CI installs the commit
    a git install came from, or the wheel (copied into the project), never the bare pin."""
    from rulecraft.compiler.commands.init import install_step

    extras = "rulecraft[compile,sheets]"
    git = {"url": "https://example.org/rc.git", "vcs_info": {"vcs": "git", "commit_id": "abc1"}}
    assert install_step(git, "0.1.0") == (
        f'pip install "{extras} @ git+https://example.org/rc.git@abc1"',
        None,
    )
    wheel = tmp_path / "rulecraft-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"PK")
    line, copy = install_step({"url": wheel.as_uri(), "archive_info": {}}, "0.1.0")
    assert line == f'pip install --find-links wheels "{extras}==0.1.0"' and copy == wheel
    # a clone with a remote: its commit from there
    clone = tmp_path / "clone"
    clone.mkdir()
    for argv in (
        ["init", "-q"],
        ["remote", "add", "origin", "https://example.org/rc.git"],
        ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"],
    ):
        subprocess.run(["git", "-C", str(clone), *argv], check=True, capture_output=True)
    head = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    line, copy = install_step({"url": clone.as_uri(), "dir_info": {"editable": True}}, "0.1.0")
    assert line == f'pip install "{extras} @ git+https://example.org/rc.git@{head}"'
    assert copy is None
    # a clone without a remote, or rulecraft from an index: the wheel in wheels/
    subprocess.run(["git", "-C", str(clone), "remote", "remove", "origin"], check=True)
    from_wheels = (f'pip install --find-links wheels "{extras}==0.1.0"', None)
    assert install_step({"url": clone.as_uri(), "dir_info": {}}, "0.1.0") == from_wheels
    assert install_step({}, "0.1.0") == from_wheels
