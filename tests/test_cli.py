"""The `rulecraft` command: the subcommands a designer runs, end to end."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from compile_helpers import REPO
from rulecraft.compiler.cli import main


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def test_check_passes_on_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    # every game is checked by test_codegen's test_committed_engines_are_what_the_rules_generate
    # (generating runs the checks) and `rulecraft compile --check` in CI: here the report
    assert main(["check", "westphalia"]) == 0
    assert capsys.readouterr().err == "rulecraft: westphalia: 1 scenario (congress), no errors\n"


def test_play_seats_a_human_and_bots_for_every_seat(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\nno\n"))
    assert main(["play", "march_of_progress/politics_by_other_means", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "Blue (you):" in out and "Orange:" in out and "Neutral player:" in out
    assert "Game abandoned, not saved." in out and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "scenario",
    [
        "thirty_years_war",
        "age_of_marlborough",
        "vive_lempereur",
        "war_to_end_war",
        "ww2_in_the_west",
        "politics_by_other_means",
    ],
)
def test_every_scenario_simulates(scenario: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", f"march_of_progress/{scenario}", "--games", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 3
    assert sum(data["wins"].values()) + data["ties"] >= 3


def test_explain_shows_where_a_value_came_from(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "march_of_progress/age_of_marlborough"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("vp_stock"))
    src = REPO / "rules/march_of_progress/scenarios/age_of_marlborough.yaml"
    at = src.read_text().splitlines().index("  vp_stock: 36") + 1  # where the file writes it
    assert "36" in line and line.endswith(f"scenarios/age_of_marlborough.yaml:{at}:13")
    assert max(len(x) for x in out.splitlines()) <= 100
    assert main(["explain", "march_of_progress/politics_by_other_means"]) == 0
    out = capsys.readouterr().out
    removed = out.split("removed:\n", 1)[1].splitlines()[0]
    assert "flow end_of_turn" in removed and "eighteen_vps" in removed
    assert main(["explain", "march_of_progress"]) == 1
    assert "has 6 scenarios: name one" in capsys.readouterr().err


def test_coverage_counts_items_named_by_tests_and_rules(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index"
    index.mkdir()
    (index / "march_of_progress.yaml").write_text(
        "game: The March of Progress\nitems:\n"
        "  - {id: MOP-ATT-03, kind: modifier, rule: ATTACK+1 adds 1}\n"
        "  - {id: MOP-AOM-SETUP-07, kind: setup, rule: neutral dice}\n"
        "  - {id: MOP-NOPE-99, kind: effect, rule: not a rule}\n"
    )
    assert main(["coverage", "--index", str(index), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    mop = data["games"]["march_of_progress"]
    assert (mop["items"], mop["encoded"], mop["tested"]) == (3, 2, 2)
    assert mop["untested"] == ["MOP-NOPE-99"]
    assert any("Assumed" in note for note in data["assumed"])


def test_unknown_scenario_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "march_of_progress/nope", "--games", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rulecraft: error: ") and "Traceback" not in err
    assert "march_of_progress/thirty_years_war" in err


def test_version_and_list(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("rulecraft ")
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "march_of_progress/thirty_years_war: Introduction: The Thirty Years War" in out
    assert "seats: blue (France), orange (The Dutch Republic)" in out
    assert "westphalia/congress" in out
    assert main(["list", "westphalia"]) == 0
    assert "march_of_progress" not in capsys.readouterr().out
    assert main(["list", "nothing"]) == 1
    assert "unknown game 'nothing'" in capsys.readouterr().err


def test_compile_without_the_formatter_says_which_extra(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ruff" else real(name, *a)
    )
    assert main(["compile", "westphalia"]) == 1
    err = capsys.readouterr().err
    assert "pip install 'rulecraft[compile]'" in err and "Traceback" not in err


def test_simulate_one_scenario_with_a_turn_limit(capsys):
    assert (
        main(
            [
                "simulate",
                "march_of_progress/war_to_end_war",
                "--games",
                "4",
                "--bot-max-turns",
                "3",
                "--json",
            ]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["turn_limit"] == 4 and data["endings"]["turn limit reached"] == 4
    assert "All VPs have been claimed" in data["endings"]  # every end the rules give, zeros too
