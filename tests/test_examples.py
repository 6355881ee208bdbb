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
