"""Sheets from the model: publishing reads the game's checked model (one run of the pipeline,
`compile_project` without code generation), never the rules YAML itself, and finds a scenario's
play aids through the link its file states (`play_aids:`), not through table titles."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
import yaml
from compile_helpers import REPO, compile_errors, edit, line_col, scratch_project
from rulecraft.compiler import loader
from rulecraft.compiler.project import bundled_project, compile_project, new_sink
from rulecraft.compiler.publish import sheets, source

PUBLISH = REPO / "compiler" / "publish"
AOM = "scenarios/age_of_marlborough.yaml"


def _models(root: Path, game: str) -> dict:
    sink = new_sink(root)
    result = compile_project(root, sink, [game], generate=False)
    assert not sink.has_errors, sink.render_all()
    return result.models


# -- the models of every game -------------------------------------------------------------------


def test_every_game_has_a_model_tables_only_ones_too(tmp_path: Path):
    # every bundled game has an engine now: a tables-only game is Marlborough's tables with
    # a game.yaml that names the game and nothing else (as the game was before its engine)
    rules = tmp_path / "rules" / "marlborough"
    shutil.copytree(REPO / "rules" / "marlborough" / "tables", rules / "tables")
    (rules / "game.yaml").write_text(
        "game: marlborough\ntitle: Marlborough\nsource: Marlborough rulebook\n", encoding="utf-8"
    )
    sink = new_sink(tmp_path)
    result = compile_project(tmp_path, sink, ["marlborough"], generate=False)
    assert not sink.has_errors, sink.render_all()
    marlborough = result.models["marlborough"]  # tables only: no engine, a model all the same
    assert marlborough.id == "marlborough" and marlborough.title
    assert marlborough.tables and not marlborough.turn
    assert list(marlborough.documents) == ["game.yaml"] and not marlborough.scenarios
    assert not [k for k in result.games if k.startswith("marlborough/")]
    project = bundled_project()
    sink = new_sink(project)
    result = compile_project(project, sink, ["westphalia"], generate=False)
    assert not sink.has_errors
    westphalia = result.models["westphalia"]  # the game before any scenario, with each of them
    assert list(westphalia.scenarios) == ["congress"] and westphalia.turn
    assert westphalia.documents["game.yaml"].data["game"] == "westphalia"


# -- the scenario's play aids --------------------------------------------------------------------


def test_play_aids_are_in_the_model_and_inherited():
    models = _models(REPO, "march_of_progress")
    scenarios = models["march_of_progress"].scenarios
    assert scenarios["age_of_marlborough"].play_aids == ("aom_neutral_vp", "aom_play_aid")
    assert scenarios["thirty_years_war"].play_aids == ()


def test_a_scenario_based_on_another_inherits_or_replaces_its_play_aids(tmp_path):
    root = scratch_project(tmp_path)
    scenarios = root / "rules" / "march_of_progress" / "scenarios"
    (scenarios / "late_marlborough.yaml").write_text(
        "scenario: late_marlborough\nbase: age_of_marlborough\ntitle: Later\n"
    )
    (scenarios / "bare_marlborough.yaml").write_text(
        "scenario: bare_marlborough\nbase: age_of_marlborough\ntitle: Bare\nplay_aids: []\n"
    )
    scenarios_of = _models(root, "march_of_progress")["march_of_progress"].scenarios
    assert scenarios_of["late_marlborough"].play_aids == ("aom_neutral_vp", "aom_play_aid")
    assert scenarios_of["bare_marlborough"].play_aids == ()
    # the full sheet prints a table once, in the first block naming it: the base's
    sheet = sheets.build_sheet("march_of_progress", rules_root=root / "rules")
    blocks = {v.id: [t.id for t in v.aid_tables] for v in sheet.scenarios}
    assert blocks["age_of_marlborough"] == ["aom_neutral_vp", "aom_play_aid"]
    assert blocks["late_marlborough"] == [] and blocks["bare_marlborough"] == []
    late = sheets.build_sheet("march_of_progress", "late_marlborough", rules_root=root / "rules")
    assert [t.id for t in late.scenarios[0].aid_tables] == ["aom_neutral_vp", "aom_play_aid"]
    bare = sheets.build_sheet("march_of_progress", "bare_marlborough", rules_root=root / "rules")
    assert not bare.scenarios[0].aid_tables
    assert "aom_play_aid" not in {t.id for t in bare.tables}


def test_an_unknown_play_aid_is_an_error_at_its_name(tmp_path):
    root = scratch_project(tmp_path)
    edit(root, AOM, "play_aids: [aom_neutral_vp, ", "play_aids: [aom_netural_vp, ")
    errors = [d for d in compile_errors(root) if d.severity == "error"]
    assert len(errors) == 1, [d.header() for d in errors]
    (d,) = errors
    line, col = line_col(root, AOM, "aom_netural_vp")
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == (
        "undefined",
        f"rules/march_of_progress/{AOM}",
        line,
        col,
    )
    assert d.message == "unknown table 'aom_netural_vp'"
    assert d.hint == "did you mean 'aom_neutral_vp'?"
    with pytest.raises(sheets.SheetError, match=f"{AOM}:{line}:{col}: error: unknown table"):
        sheets.build_sheet("march_of_progress", rules_root=root / "rules")


def test_a_play_aid_that_is_not_a_name_is_a_schema_error(tmp_path):
    root = scratch_project(tmp_path)
    edit(root, AOM, "play_aids: [aom_neutral_vp, ", "play_aids: [Neutral VP, ")
    (d,) = [d for d in compile_errors(root) if d.severity == "error"]
    line, col = line_col(root, AOM, "Neutral VP")
    assert (d.code, d.pos.file, d.pos.line, d.pos.col) == (
        "schema",
        f"rules/march_of_progress/{AOM}",
        line,
        col,
    )


def test_a_linked_table_prints_for_its_scenario_only():
    """Rules: MOP-AOM-SETUP-07"""
    aom = sheets.build_sheet("march_of_progress", "age_of_marlborough")
    assert [t.id for t in aom.scenarios[0].aid_tables] == ["aom_neutral_vp", "aom_play_aid"]
    vive = sheets.build_sheet("march_of_progress", "vive_lempereur")
    printed = {t.id for t in vive.tables} | {t.id for t in vive.scenarios[0].aid_tables}
    assert "vive_play_aid" in printed and not printed & {"aom_neutral_vp", "aom_play_aid"}
    full = sheets.build_sheet("march_of_progress")
    where = {t.id: v.id for v in full.scenarios for t in v.aid_tables}
    assert where["aom_neutral_vp"] == where["aom_play_aid"] == "age_of_marlborough"
    assert not {"aom_neutral_vp", "aom_play_aid"} & {t.id for t in full.tables}


def test_the_link_not_the_title_decides(tmp_path):
    """A table grouped "Scenario: ..." that no scenario names is the game's: it prints for
    every scenario, among the game's tables."""
    root = scratch_project(tmp_path)
    edit(root, AOM, "play_aids: [aom_neutral_vp, aom_play_aid]", "play_aids: [aom_neutral_vp]")
    rules = root / "rules"
    vive = sheets.build_sheet("march_of_progress", "vive_lempereur", rules_root=rules)
    assert "aom_play_aid" in {t.id for t in vive.tables}
    assert "aom_neutral_vp" not in {t.id for t in vive.tables}
    full = sheets.build_sheet("march_of_progress", rules_root=rules)
    assert "aom_play_aid" in {t.id for t in full.tables}
    aom = next(v for v in full.scenarios if v.id == "age_of_marlborough")
    assert [t.id for t in aom.aid_tables] == ["aom_neutral_vp"]


# -- publishing reads the model, not the files -----------------------------------------------


def test_publish_modules_do_not_read_yaml():
    """No module of compiler/publish imports yaml or the loader: the model has the data."""
    for path in sorted(PUBLISH.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [a.name for a in node.names]
            bad = [n for n in names if n.split(".")[-1] in ("yaml", "loader", "load_yaml")]
            assert not bad, f"{path.name} imports {bad}"


#: in the worker that builds these games' sheets (test_sheets' groups), which compiled them
#: already: a process keeps each game's model
_SHEETS = pytest.mark.xdist_group("sheets")
_MARLBOROUGH = [_SHEETS, pytest.mark.xdist_group("sheets_marlborough")]


@pytest.mark.parametrize(
    "game, scenario",
    [
        pytest.param("march_of_progress", None, marks=_SHEETS),
        pytest.param("march_of_progress", "war_to_end_war", marks=_SHEETS),
        pytest.param("marlborough", None, marks=_MARLBOROUGH),
        pytest.param("third_reich_diplomacy", None, marks=_SHEETS),
        pytest.param("westphalia", "congress", marks=_SHEETS),
    ],
)
def test_a_sheet_built_from_the_model_reads_no_yaml(game, scenario, monkeypatch):
    """Once the pipeline ran, building a sheet parses no YAML at all."""
    root = sheets.default_rules_root()
    source.game_model(root, game)  # the pipeline's run (kept while the files do not change)
    calls: list[str] = []

    def refuse(name):
        def call(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} called while building a sheet from the model")

        return call

    for name in ("load", "safe_load", "compose", "parse", "scan"):
        monkeypatch.setattr(yaml, name, refuse(f"yaml.{name}"))
    for name in ("load_yaml", "load_yaml_text"):
        monkeypatch.setattr(loader, name, refuse(f"loader.{name}"))
    sheet = sheets.build_sheet(game, scenario)
    assert sheet.tables and calls == []
