"""Examples of play (``rules/<game>/examples/*.yaml``, run by ``rulecraft test``): the
position they set up, the decisions they script and what they expect, on the compiled
engine; a failure is a diagnostic at the step or the set-up key of the example file."""

from __future__ import annotations

from pathlib import Path

from compile_helpers import REPO, edit, line_col, scratch_project
from rulecraft.compiler.examples import example_files, run_examples
from rulecraft.compiler.project import new_sink

EXAMPLE = "examples/example_of_play.yaml"


def run(root: Path) -> tuple[list, list]:
    sink = new_sink(root)
    results = run_examples(root, example_files(root), sink)
    return results, sink.sorted()


def test_the_examples_of_play_pass() -> None:
    results, errors = run(REPO)
    assert results and all(r.ok for r in results), [e.render() for e in errors]
    assert not errors
    assert any(r.path == f"rules/march_of_progress/{EXAMPLE}" and r.steps > 5 for r in results)


def test_an_unmet_expectation_is_an_error_at_its_step(tmp_path: Path) -> None:
    root = scratch_project(tmp_path)
    edit(root, EXAMPLE, "state: {g.initiative: orange}", "state: {g.initiative: blue}")
    results, errors = run(root)
    assert [r.ok for r in results] == [False]
    [err] = errors
    assert err.code == "example"
    assert err.message == "g.initiative is 'orange', expected 'blue'"
    line, _ = line_col(root, EXAMPLE, "state: {g.initiative: blue}")
    assert (err.pos.file, err.pos.line) == (f"rules/march_of_progress/{EXAMPLE}", line)


def test_a_position_the_state_cannot_hold_is_an_error_at_its_key(tmp_path: Path) -> None:
    root = scratch_project(tmp_path)
    # a card pile is a set: a card is in it once
    edit(root, EXAMPLE, "p.blue.discard: [move_1, strength]", "p.blue.discard: [move_1, move_1]")
    results, errors = run(root)
    assert [r.ok for r in results] == [False]
    [err] = errors
    assert err.code == "example" and "not a valid value for 'p.blue.discard'" in err.message
    assert (err.pos.line, err.pos.col) == line_col(root, EXAMPLE, "p.blue.discard")


def test_an_example_kept_anywhere_names_its_game(tmp_path: Path) -> None:
    src = (REPO / "rules" / "westphalia" / "examples" / "n_private_offers.yaml").read_text()
    anywhere = tmp_path / "mine.yaml"
    anywhere.write_text(src.replace("scenario: congress", "scenario: westphalia/congress"))
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [anywhere], sink)
    assert result.ok and not sink.sorted()
    short = tmp_path / "short.yaml"
    short.write_text(src)
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [short], sink)
    [err] = sink.sorted()
    assert not result.ok and "its scenario must name the game" in err.message
    assert err.hint == "write scenario: <game>/congress"


def test_log_is_the_public_log_and_log_of_what_a_seat_reads(tmp_path: Path) -> None:
    """Rules: WEST-1-01"""
    src = (REPO / "rules" / "westphalia" / "examples" / "n_private_offers.yaml").read_text()
    private = "Austria offers: Austria gives Bavaria 2 Units"
    mine = tmp_path / "public.yaml"
    # the terms are private under this reading: the public log does not have them
    mine.write_text(
        src.replace("scenario: congress", "scenario: westphalia/congress").replace(
            "log: [Austria makes an offer to Bavaria]", f'log: ["{private}"]'
        )
    )
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [mine], sink)
    assert not result.ok and f"no log line contains {private!r}" in sink.sorted()[0].message
    # under the literal reading (offers public) the same expectation holds
    mine.write_text(mine.read_text().replace("open_negotiation: false", "open_negotiation: true"))
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [mine], sink)
    assert result.ok, [e.render() for e in sink.sorted()]


SET_UP_ASKS = """\
example: setup_after_questions
scenario: westphalia/congress
seed: 0
setup:
  p.austria.goal: goal_1
steps:
  - expect: {options: {player: austria, ids: [goal:goal_4, goal:goal_5, goal:goal_6]}}
"""


def _run_one(path: Path) -> tuple[bool, list]:
    sink = new_sink(REPO)
    [result] = run_examples(REPO, [path], sink)
    return result.ok, sink.sorted()


def test_setup_is_written_once_set_up_asked_its_questions(tmp_path: Path) -> None:
    """Austria keeps a Goal card in set-up (WEST-2-06); `setup` is written after that."""
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        SET_UP_ASKS
        + """\
  - decide: {player: austria, option: "goal:goal_5"}
  - expect: {state: {p.austria.goal: goal_1, g.goal_discards: [goal_4, goal_6]}}
"""
    )
    ok, errors = _run_one(mine)
    assert ok, [e.render() for e in errors]


def test_a_set_step_writes_where_the_script_stands(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        SET_UP_ASKS.replace("setup:\n  p.austria.goal: goal_1\n", "")
        + """\
  - set: {g.goal_discards: [goal_1]}
  - decide: {player: austria, option: "goal:goal_5"}
  - expect: {state: {p.austria.goal: goal_5, g.goal_discards: [goal_4, goal_6]}}
  - set: {p.austria.goal: goal_2}
  - expect: {state: {p.austria.goal: goal_2}}
"""
    )
    ok, errors = _run_one(mine)
    assert ok, [e.render() for e in errors]


def test_setup_never_written_is_an_error_at_its_key(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text(SET_UP_ASKS)
    ok, [err] = _run_one(mine)
    assert not ok and err.message.startswith("`setup` was never applied")
    assert (err.pos.line, err.pos.col) == (4, 1)
    assert "decide" in err.hint
