"""A local started as ``[]`` takes the type of the first list of known elements assigned to
it, so a loop over it may read and change its elements' fields; a use before that assignment
is an error with its place, not a compiler failure (found writing Rise of Totalitarianism:
``let ranked = []`` grown by ``ranked = ranked + [...]``, then ``for q in ranked: q.x = ...``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from compile_helpers import compile_errors, import_generated, scenario_module
from rulecraft.compiler.project import compile_project, new_sink, write_outputs

EDICTS = Path(__file__).parent / "fixtures" / "games" / "edicts"


def _project(tmp_path: Path, body: str) -> Path:
    """The edicts fixture with a procedure ``reset`` of ``body``, called each harvest."""
    shutil.copytree(EDICTS, tmp_path / "rules" / "edicts")
    (tmp_path / "generated").mkdir()
    rules = tmp_path / "rules" / "edicts" / "rules.yaml"
    indented = "".join(f"      {line}\n" for line in body.splitlines())
    text = rules.read_text().replace(
        "procedures:\n", f"procedures:\n  reset:\n    doc: test\n    body: |\n{indented}", 1
    )
    rules.write_text(text)
    flow = tmp_path / "rules" / "edicts" / "flow.yaml"
    flow.write_text(
        flow.read_text().replace(
            "          harvest(p)\n", "          harvest(p)\n      reset()\n", 1
        )
    )
    return tmp_path


def _game(root: Path):  # type: ignore[no-untyped-def]
    """The project compiled and generated: a new game of its realm scenario, seed 1."""
    sink = new_sink(root)
    result = compile_project(root, sink)
    assert not sink.has_errors, sink.render_all()
    write_outputs(root, result.outputs)
    from rulecraft.runtime import Game

    engine = scenario_module(import_generated(root, "edicts"), "realm")
    return Game.new(engine.SPEC, None, 1)


def test_a_list_started_empty_takes_the_type_of_what_is_added(tmp_path: Path) -> None:
    root = _project(
        tmp_path,
        "let ranked = []\nfor p in players:\n    ranked = ranked + [p]\n"
        "for q in ranked:\n    q.vp = 7\n",
    )
    g = _game(root)
    while not g.finished and g.state["g"]["round"] < 2:  # to the first decision of round 2
        d = g.pending()[0]
        g.apply(d.player, d.options[-1].id)
    assert [p["vp"] for p in g.state["p"]] == [7, 7]


def test_a_field_of_an_element_before_its_type_is_known_is_an_error(tmp_path: Path) -> None:
    root = _project(tmp_path, "let ranked = []\nfor q in ranked:\n    q.vp = 0\n")
    errors = compile_errors(root, generate=True)
    assert [e.code for e in errors] == ["type"], [e.render() for e in errors]
    e = errors[0]
    assert "the type of 'q' is not known here" in e.message
    assert e.pos is not None and e.pos.file.endswith("rules.yaml") and e.pos.line > 0
    assert "takes the type of the first list assigned to it" in (e.hint or "")


def test_a_local_started_as_none_takes_the_type_of_what_is_given_to_it(tmp_path: Path) -> None:
    """``let holder = none`` and later ``holder = p``: a log line names the player, not its
    number (found writing Rise of Totalitarianism's Bonus Card and Marlborough's 6.511, where
    "1 holds the Bonus Card" was logged)."""
    root = _project(
        tmp_path,
        "let holder = none\nfor p in players:\n    if holder == none:\n        holder = p\n"
        'log "{holder} leads the harvest"\n',
    )
    g = _game(root)
    while not g.finished and not any("leads the harvest" in x for x in g.log_for(None)):
        d = g.pending()[0]
        g.apply(d.player, d.options[-1].id)
    (line,) = [x for x in g.log_for(None) if "leads the harvest" in x]
    assert line.lower() == f"{g.spec.seats[0]} leads the harvest"  # "Red", not "0"
