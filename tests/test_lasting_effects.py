"""Lasting effects (`effects:` in rules.yaml, compiler/lasting.py) on an invented game
(tests/fixtures/games/edicts/): cards put rule changes in force with `start`, scoped to a
player or to the game; the rules they change (a value, a permission, a procedure) know
nothing of them; they end by `end`, by `until` (checked after every flow step and after the
procedures of `check_after`) or with a flow step (`ends_at`); the board, the views and saves
carry what is in force and why; both forms of the engine agree; the sheet lists them; and
the errors a designer sees."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from compile_helpers import fixture_errors
from fixtures.edicts import GAMES, ROOT, SPEC, SPECS
from forms_helpers import lockstep
from rulecraft.compiler.examples import example_files, run_examples
from rulecraft.compiler.project import new_sink
from rulecraft.runtime import Game
from rulecraft.runtime.tools.agents import RandomAgent
from rulecraft.runtime.tools.board import render_view
from test_all_scenarios import check_hidden_information

RED, BLUE = 0, 1
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "games" / "edicts"


def play(g: Game, *moves: str) -> None:
    for oid in moves:
        d = g.pending()[0]
        g.apply(d.player, oid)


def asked(g: Game) -> tuple[str, str, list[str]]:
    d = g.pending()[0]
    return g.spec.seats[d.player], d.prompt, [o.id for o in d.options]


def in_force(g: Game) -> list[str]:
    return dict(g.displays(None)).get("In force", [])


# -- starting, changing, ending


def test_the_examples_show_each_kind_of_end():
    sink = new_sink(ROOT)
    results = run_examples(ROOT, example_files(ROOT), sink)
    assert not sink.sorted(), [e.render() for e in sink.sorted()]
    assert {Path(r.path).stem for r in results} == {
        "embargo_until",
        "festival_ends_at",
        "blockade_lifted",
    }
    assert all(r.ok and r.steps > 5 for r in results)


def test_an_effect_on_a_player_forbids_and_modifies_for_that_player_only():
    g = Game.new(SPEC, None, 1)
    play(g, "card:embargo", "none")
    # red may trade (2 gold); blue, with 2 gold too, is not asked: the embargo forbids it
    assert asked(g)[:2] == ("red", "Trade 2 gold for 1 VP?")
    play(g, "no")
    assert asked(g)[:2] == ("red", "Proclaim an edict")
    log = g.log_for(None)
    assert "Red harvests 2 gold" in log and "Blue harvests 1 gold" in log
    assert g.state["p"][BLUE]["effect__embargo"] > 0
    assert g.state["p"][RED]["effect__embargo"] == 0


def test_until_is_checked_after_each_call_of_a_procedure_of_check_after():
    """Blue, embargoed, levies a tax under the festival and so holds 3 VP: the embargo ends
    right after `tax`, before the harvest, which gives Blue its full income again."""
    g = Game.new(SPEC, None, 1)
    play(g, "card:embargo", "card:festival", "no", "no")
    assert asked(g)[:2] == ("blue", "Levy a tax of 1 VP?")  # no trade: the embargo forbids it
    g.state["p"][BLUE]["vp"] = 2
    play(g, "yes")
    log = g.log_for(None)
    ended = log.index("Embargo ends on Blue (until target.vp >= 3)")
    assert log[ended - 1] == "Blue levies a tax"
    assert "Blue harvests 3 gold" in log[ended:]  # 2, +1 festival, and no embargo
    assert g.state["p"][BLUE]["effect__embargo"] == 0


def test_until_is_checked_when_each_flow_step_ends():
    g = Game.new(SPEC, None, 1)
    play(g, "card:embargo", "none", "no")
    assert g.state["p"][BLUE]["effect__embargo"] > 0
    g.state["p"][BLUE]["vp"] = 3
    play(g, "none")
    assert "Embargo ends" not in " ".join(g.log_for(None))  # the edict step goes on
    play(g, "none")
    assert g.log_for(None)[-1] == "Embargo ends on Blue (until target.vp >= 3)"


def test_a_replaced_procedure_runs_its_replacement_while_in_force_and_the_original_after():
    g = Game.new(SPEC, None, 1)
    play(g, "none", "card:blockade", "no", "no")
    assert "Red's harvest is seized by the blockade" in g.log_for(None)
    assert g.state["p"][RED]["gold"] == 2
    play(g, "card:lift", "none", "no", "no")
    log = g.log_for(None)
    ended = log.index("Blockade ends on Red (card Lift the blockade)")
    assert "Red harvests 2 gold" in log[ended:]
    assert g.state["p"][RED]["gold"] == 4


def test_an_effect_on_the_game_ends_with_its_flow_step():
    g = Game.new(SPEC, None, 1)
    play(g, "none", "card:festival")
    assert g.state["g"]["effect__festival"] > 0
    play(g, "no", "no", "no", "no")
    assert g.state["g"]["effect__festival"] == 0
    assert "Festival ends (turn.harvest ends)" in g.log_for(None)


def test_in_force_asks_the_rules_whether_an_effect_is_in_force():
    g = Game.new(SPEC, None, 1)
    play(g, "card:lift")
    assert "Red is not blockaded" in g.log_for(None)


# -- what is in force, and why: board, views, saves


def test_the_board_shows_what_is_in_force_and_why():
    g = Game.new(SPEC, None, 1)
    assert in_force(g) == []
    play(g, "card:embargo", "card:blockade")
    assert in_force(g) == [
        "Embargo on Blue (card Embargo): The lord may not trade, and harvests 1 gold less.",
        "Blockade on Red (card Blockade): The lord's harvest is seized.",
    ]
    text = render_view(g.view(RED), g.spec, g.displays(RED))
    assert "In force" in text and "Embargo on Blue (card Embargo)" in text
    assert "effect__" not in text and "Embargo in force" not in text  # the fields are internal


def test_views_carry_what_is_in_force_to_every_seat():
    g = Game.new(SPEC, None, 1)
    play(g, "card:embargo")
    for seat in (RED, BLUE, None):
        view = g.view(seat)
        assert json.dumps(view).count("effect__embargo") >= 1
    assert g.view(RED)["p"][BLUE]["effect__embargo"] == g.state["p"][BLUE]["effect__embargo"] > 0


def test_a_save_keeps_what_is_in_force_and_its_cause():
    g = Game.new(SPEC, None, 1)
    play(g, "card:embargo", "card:blockade", "no")
    text = g.to_json()
    h = Game.from_json(text, SPEC)
    assert in_force(h) == in_force(g) and len(in_force(h)) == 2
    rng = random.Random(3)
    while not g.finished:
        d = g.pending()[0]
        oid = d.options[rng.randrange(len(d.options))].id
        g.apply(d.player, oid)
        h.apply(d.player, oid)
    assert h.result == g.result and h.state["log"] == g.state["log"]


def test_views_hide_what_a_seat_may_not_see_along_random_games():
    for seed in range(8):
        g = Game.new(SPEC, None, seed)
        rng = random.Random(seed)
        while not g.finished:
            check_hidden_information(g, rng)
            d = g.pending()[0]
            g.apply(d.player, d.options[rng.randrange(len(d.options))].id)


def test_random_games_end_and_both_forms_play_the_same_games():
    for seed in range(30):
        agents = [RandomAgent(seed * 2 + s) for s in range(2)]
        g = Game.new(SPEC, None, seed)
        while not g.finished:
            d = g.pending()[0]
            g.apply(d.player, agents[d.player].choose(None, d, SPEC))
        assert g.result is not None
    for seed in range(8):
        rec = lockstep(SPEC, seed)
        assert rec.decisions and not rec.machine.error


# -- the model, the sheet


def test_the_rules_changed_know_nothing_of_the_effects():
    """The designer's routines are unchanged: the effects are woven around them."""
    game = GAMES["edicts/realm"]
    assert [e.name for e in game.lasting] == ["embargo", "festival", "blockade", "plague"]
    assert "income__base" in game.functions and "harvest__base" in game.functions
    assert "may_trade__base" in game.functions and "may_tax__base" in game.functions
    assert "rival__base" not in game.functions and "trade__base" not in game.functions


def test_the_sheet_lists_the_effects():
    from rulecraft.compiler.publish.sheets import render_html

    html = render_html("edicts", rules_root=ROOT / "rules")
    assert "Lasting effects" in html
    for text in (
        "Embargo",
        "may_trade",
        "until target.vp &gt;= 3",
        "when turn.harvest ends",
        "replaces harvest where p == target",
    ):
        assert text in html, text


# -- errors a designer sees


def _errors(tmp_path: Path, old: str, new: str, file: str = "rules.yaml"):  # type: ignore[no-untyped-def]
    return fixture_errors(tmp_path, FIXTURE, old, new, file)


def test_starting_an_unknown_effect_is_an_error_with_a_suggestion(tmp_path):
    errors, lines = _errors(
        tmp_path, '"start embargo(rival(me))"', '"start embargoo(rival(me))"', "cards.yaml"
    )
    e = errors[0]
    assert (e.code, e.pos.file) == ("undefined", "rules/edicts/cards.yaml")
    assert lines[e.pos.line - 1][e.pos.col - 1 :].startswith("embargoo")
    assert "embargo" in (e.hint or "")


def test_the_wrong_number_of_arguments_is_an_error(tmp_path):
    errors, lines = _errors(tmp_path, '"start festival()"', '"start festival(me)"', "cards.yaml")
    e = errors[0]
    assert e.code == "arity" and "festival" in e.message and "the game" in e.message
    assert "start festival" in lines[e.pos.line - 1]


def test_in_force_of_an_unknown_effect_is_an_error(tmp_path):
    errors, lines = _errors(
        tmp_path, "in_force(blockade, me)", "in_force(blokade, me)", "cards.yaml"
    )
    e = errors[0]
    assert e.code == "undefined" and "blockade" in (e.hint or "")
    assert lines[e.pos.line - 1][e.pos.col - 1 :].startswith("blokade")


def test_modifying_what_is_not_an_int_function_is_an_error(tmp_path):
    errors, lines = _errors(
        tmp_path, '      income: {by: "-1", where: "p ==', '      may_tax: {by: "-1", where: "p =='
    )
    e = errors[0]
    assert e.code == "undefined" and "not a function that gives an int" in e.message
    assert "may_tax" in lines[e.pos.line - 1] and "income" in (e.hint or "")


def test_ending_at_an_unknown_flow_step_is_an_error(tmp_path):
    errors, lines = _errors(tmp_path, "ends_at: turn.harvest", "ends_at: turn.harvset")
    e = errors[0]
    assert e.code == "undefined" and "turn.harvest" in (e.hint or "")
    assert "turn.harvset" in lines[e.pos.line - 1]


def test_a_scope_param_named_like_a_param_of_what_it_changes_is_an_error(tmp_path):
    errors, lines = _errors(
        tmp_path,
        '    scope: {target: player}\n    forbids:\n      may_trade: "p == target"',
        '    scope: {p: player}\n    forbids:\n      may_trade: "p == p"',
    )
    assert any(e.code == "duplicate-name" and "'p'" in e.message for e in errors)


def test_check_after_without_until_is_an_error(tmp_path):
    errors, _ = _errors(tmp_path, '    until: "target.vp >= 3"\n', "")
    assert any("has no until" in e.message for e in errors)


def test_a_scope_of_two_params_is_refused(tmp_path):
    errors, lines = _errors(
        tmp_path,
        "    scope: {target: player}\n    replaces",
        "    scope: {target: player, other: player}\n    replaces",
    )
    [e] = errors  # its uses are not errors too
    assert e.code == "schema" and "at most one" in e.message and "scope" in lines[e.pos.line - 1]


def test_a_start_statement_needs_its_parentheses(tmp_path):
    errors, _ = _errors(tmp_path, '"start festival()"', '"start festival"', "cards.yaml")
    assert errors[0].code == "syntax"


@pytest.mark.parametrize("word", ["start", "end"])
def test_start_and_end_are_words_of_the_language(word):
    from rulecraft.compiler.diagnostics import DiagnosticSink
    from rulecraft.compiler.effects import Lasting, Snippet, parse_into

    sink = DiagnosticSink()
    body = parse_into(Snippet(f'{word} embargo(x)\nend_game([], "r")\n', lambda off: None), sink)  # type: ignore[arg-type, return-value]
    assert not sink.has_errors and isinstance(body[0], Lasting) and body[0].op == word


def test_an_argument_of_the_wrong_type_names_the_statement(tmp_path):
    errors, lines = _errors(tmp_path, "start embargo(rival(me))", "start embargo(1)", "cards.yaml")
    [e] = errors
    assert e.code == "type" and "'start embargo'" in e.message and "player" in e.message
    assert lines[e.pos.line - 1][e.pos.col - 1 :].startswith("1)")


# -- a scenario's overlays, a scope of records


def test_an_effect_on_a_record_stays_on_a_function_a_scenario_replaces():
    """The lean years replace `income` (3 gold): the plague on Blue's town Ford still takes
    1 from it, and ends when its `until` holds."""
    spec = SPECS["lean_years"]
    g = Game.new(spec, None, 1)
    play(g, "card:plague", "none", "no", "no")
    log = g.log_for(None)
    assert "Plague is in force on Ford (card Plague)" in log
    assert "Red harvests 3 gold" in log and "Blue harvests 2 gold" in log
    assert in_force(g) == ["Plague on Ford (card Plague): The town's lord harvests 1 gold less."]
    play(g, "none", "none", "no", "no")  # round 2
    assert "Blue harvests 2 gold" in g.log_for(None)[-3:]
    play(g, "none", "none")  # round 3: the edict step ends with round 3
    assert "Plague ends on Ford (until round >= 3)" in g.log_for(None)
    assert in_force(g) == []


def test_both_forms_and_views_agree_in_every_scenario():
    for spec in SPECS.values():
        for seed in range(4):
            rec = lockstep(spec, seed)
            assert rec.decisions and not rec.machine.error
            g = Game.new(spec, None, seed)
            rng = random.Random(seed)
            while not g.finished:
                check_hidden_information(g, rng)
                d = g.pending()[0]
                g.apply(d.player, d.options[rng.randrange(len(d.options))].id)


def test_an_effect_started_in_a_flow_step_names_the_step(tmp_path):
    from compile_helpers import compile_into, import_generated

    (tmp_path / "rules").mkdir()
    (tmp_path / "generated").mkdir()
    shutil.copytree(FIXTURE, tmp_path / "rules" / "edicts")
    flow = tmp_path / "rules" / "edicts" / "flow.yaml"
    text = flow.read_text(encoding="utf-8")
    old = "  market:\n    do: |\n"
    assert text.count(old) == 1
    flow.write_text(text.replace(old, old + "      start festival()\n"), encoding="utf-8")
    compile_into(tmp_path)
    g = Game.new(import_generated(tmp_path, "edicts").SPECS["realm"], None, 1)
    play(g, "none", "none")
    assert "Festival is in force (turn.market)" in g.log_for(None)
    assert in_force(g) == [
        "Festival (turn.market): Every lord harvests 1 gold more and may levy a tax."
    ]


def test_a_start_in_a_function_names_the_function_as_written(tmp_path):
    """`income` moved to `income__base` (an effect changes it): the message names `income`."""
    errors, lines = _errors(
        tmp_path, "      return 2\n", "      start festival()\n      return 2\n"
    )
    [e] = errors
    assert e.code == "side-effect" and e.message == "function 'income' may not start festival"
    assert lines[e.pos.line - 1].strip() == "start festival()"
