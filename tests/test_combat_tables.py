"""Combat results tables read from effects: `resolve` (the odds column from the strengths,
named column shifts, the clamp, the roll, the log line), result fields (`r.shift` of a matrix
result, `r.roll` and `r.column` of a resolved one), result programs of column tables, a table
program that ends the game, the turn number, and the names `lookup`/`resolve` check at compile
time. On the invented game tests/fixtures/games/skirmish/ and on Marlborough's own tables
(tests/fixtures/games/marlborough_crt/ over rules/marlborough/tables/: the rulebook's worked
examples of 18.21, 18.22 and 18.3)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from compile_helpers import REPO, compile_errors, compile_into, fixture_game, game_tables
from forms_helpers import lockstep
from rulecraft.compiler.examples import example_files, run_examples
from rulecraft.compiler.project import new_sink
from rulecraft.compiler.tables import load_tables
from rulecraft.runtime.prelude import odds_column
from rulecraft.runtime.spec import resolved_text, scaled_text

ROOT, PACKAGE = fixture_game("skirmish")
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "games"


def _marlborough_crt() -> tuple[Path, object]:
    """The marlborough_crt fixture with Marlborough's tables copied in, compiled."""
    from compile_helpers import import_generated

    scratch = tempfile.TemporaryDirectory(prefix="rulecraft-marlborough-crt-")
    _KEEP.append(scratch)
    root = Path(scratch.name)
    (root / "generated").mkdir()
    shutil.copytree(FIXTURES / "marlborough_crt", root / "rules" / "marlborough_crt")
    shutil.copytree(
        REPO / "rules" / "marlborough" / "tables", root / "rules" / "marlborough_crt" / "tables"
    )
    compile_into(root)
    return root, import_generated(root, "marlborough_crt")


_KEEP: list[object] = []
MARL_ROOT, MARL = _marlborough_crt()


def _examples(root: Path, game: str) -> list:
    """Run the examples of a scratch project's game, its engines registered meanwhile."""
    from compile_helpers import import_generated
    from rulecraft.runtime import registry

    saved = dict(registry._SPECS)
    try:
        import_generated(root, game, register=True)
        sink = new_sink(root)
        results = run_examples(root, example_files(root), sink)
    finally:
        registry._SPECS.clear()
        registry._SPECS.update(saved)
    assert results and all(r.ok for r in results), [e.render() for e in sink.sorted()]
    return results


def test_the_fixture_examples_pass():
    """Odds, shifts, the clamp, the fortress's fixed shift, the matrix's shift, result
    programs, a rout that ends the game from a table program, and the turn number."""
    assert len(_examples(ROOT, "skirmish")) == 3


def test_marlborough_worked_examples_pass():
    """MARL-18.21-01/02/03 (14 to 5 = 2:1, 10 to 6 = 1.5:1, 6 to 10 = 1:2), MARL-18.3-04
    (10 to 6 with leaders +2 and -1 = 2:1), MARL-18.22-01 (beyond 4:1 and below 1:3),
    MARL-PA17.0R-01 (the Battle Matrix's +2 and -2)."""
    assert len(_examples(MARL_ROOT, "marlborough_crt")) == 6


@pytest.mark.parametrize("where", ["skirmish", "marlborough"])
def test_the_engine_reads_the_same_odds_column_as_the_table_model(where):
    """The runtime's odds (integers only) and the compiler's table model (fractions) agree on
    every pair of strengths from 0 to 30 (MARL-18.21-02, MARL-18.21-03, MARL-18.22-01)."""
    if where == "skirmish":
        sink = new_sink(ROOT)
        crt = load_tables(ROOT / "rules" / "skirmish", sink)["crt"]
        engine = PACKAGE.SPECS["field"].engine
    else:
        crt = game_tables("marlborough")["crt"]
        engine = MARL.SPECS["combat"].engine
    data = engine.t_crt
    _title, by_odds, bounds, attacker_up, defender_up, clamp, dice = data[9]
    assert by_odds and clamp and dice == (1, 6, False)
    for a in range(31):
        for d in range(31):
            col = data[3][odds_column(bounds, a, d, attacker_up, defender_up)]
            assert col == crt.column_for(a, d), (a, d)


def test_marlborough_rounds_in_the_defenders_favour():
    """MARL-18.21-02/03: 2.8:1 is 2:1, 1.67:1 is 1.5:1, 1:1.67 is 1:2, 1:2.5 is 1:3."""
    data = MARL.SPECS["combat"].engine.t_crt
    _t, _o, bounds, up_a, up_d, _c, _d = data[9]
    cols = data[3]
    assert cols[odds_column(bounds, 14, 5, up_a, up_d)] == "2:1"
    assert cols[odds_column(bounds, 10, 6, up_a, up_d)] == "1.5:1"
    assert cols[odds_column(bounds, 6, 10, up_a, up_d)] == "1:2"
    assert cols[odds_column(bounds, 4, 10, up_a, up_d)] == "1:3"
    assert cols[odds_column(bounds, 40, 2, up_a, up_d)] == "4:1"


def test_the_forms_agree_on_resolved_combats():
    """The machine form and the playout form roll the same dice and take the same results."""
    for scenario in ("field", "fort", "plain"):
        for seed in range(8):
            lockstep(PACKAGE.SPECS[scenario], seed)


def test_the_log_line_names_the_dice_the_modifier_and_the_shifts():
    one = ("CRT", (3, 1), "3:1", (("leader", 1), ("river", -1)), "3:1", (4,), 4, 0, "DD")
    assert resolved_text(one) == "CRT 3:1 (3 to 1; +1 leader, -1 river = 3:1), die 4: DD"
    two = ("Diplomacy", (5,), "+5", (("", 2),), "+7", (3, 4), 7, -1, "Ally")
    assert resolved_text(two) == "Diplomacy +5 (5; +2 = +7), dice 3+4 = 7 -1 = 6: Ally"
    d66 = ("T", (1, 1), "1:1", (), "1:1", (3, 4), 34, 0, "x")
    assert resolved_text(d66) == "T 1:1 (1 to 1), dice 3,4 = 34: x"


def test_a_scaled_field_prints_its_exact_fraction():
    """`scale: 2` keeps halves (Marlborough 10.12: Berlin's 3 TP halved is 1.5, MARL-10.12-01);
    the state holds the count, the log prints the number."""
    assert [scaled_text(v, 2) for v in (3, 4, 0, -3, 1)] == ["1.5", "2", "0", "-1.5", "0.5"]
    assert scaled_text(3, 4) == "0.75" and scaled_text(7, 10) == "0.7"
    assert (
        scaled_text(1, 3) == "1/3" and scaled_text(4, 6) == "2/3" and scaled_text(-7, 3) == "-7/3"
    )


# -- errors a designer sees


def _broken(tmp_path: Path, rel: str, old: str, new: str) -> list:
    root = tmp_path
    (root / "generated").mkdir()
    shutil.copytree(FIXTURES / "skirmish", root / "rules" / "skirmish")
    path = root / "rules" / "skirmish" / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return compile_errors(root)


def _at(tmp_path: Path, rel: str, needle: str) -> tuple[int, int]:
    text = (tmp_path / "rules" / "skirmish" / rel).read_text(encoding="utf-8")
    i = text.index(needle)
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


RESOLVE = 'resolve("crt", red.strength, blue.strength, general=general'


@pytest.mark.parametrize(
    ("old", "new", "needle", "message", "hint"),
    [
        (
            "general=general",
            "genral=general",
            "genral=",
            "table 'crt' has no shift 'genral'",
            "did you mean 'general'?",
        ),
        (
            'lookup("plans", a, d)',
            'lookup("plans", "asault", d)',
            '"asault"',
            "table 'plans' has no row 'asault'",
            "did you mean 'assault'?",
        ),
        (
            'lookup("plans", a, d)',
            'lookup("plans", a, "hodl")',
            '"hodl"',
            "table 'plans' has no column 'hodl'",
            "did you mean 'hold'?",
        ),
        (
            'if m.code == "No battle":',
            'if m.code == "No batle":',
            '"No batle"',
            "table 'plans' has no result 'No batle'",
            "did you mean 'No battle'?",
        ),
        (
            'log "Roll {r.roll} on column {r.column}: {r.code}"',
            'log "Roll {m.roll}: {r.code}"',
            "roll}",
            "a table result has no field 'roll'",
            "only a result of resolve() has a roll and a column",
        ),
        (
            RESOLVE,
            'resolve("plans", red.strength, blue.strength, general=general',
            '"plans", red',
            "table 'plans' is a matrix table; resolve() reads column tables (a combat results "
            "table: dice rows by odds or value columns)",
            'for a matrix table use lookup("plans", ...)',
        ),
        (
            RESOLVE,
            'resolve("crt", red.strength, general=general',
            'resolve("crt"',
            "resolve() of table 'crt' takes the attack and defence strengths after the table, "
            "not 1 argument",
            None,
        ),
        (
            "hill=hill",
            "hill=true",
            "true, plan",
            "shift hill= (a number of columns) must be an int, not a bool",
            None,
        ),
        (
            "let general = ",
            "turn = 2\n      let general = ",
            "turn = 2",
            "'turn' is the turn number, which only the flow of play advances",
            "to end the turn early, call next_turn(); to count something else, declare a global",
        ),
    ],
)
def test_misspelled_names_are_compile_errors_at_their_place(
    tmp_path, old, new, needle, message, hint
):
    errors = _broken(tmp_path, "flow.yaml", old, new)
    assert [e.message for e in errors] == [message], [e.render() for e in errors]
    line, col = _at(tmp_path, "flow.yaml", needle)
    assert (errors[0].pos.line, errors[0].pos.col) == (line, col)
    if hint is not None:
        assert errors[0].hint == hint


def test_a_result_program_on_a_range_table_is_refused(tmp_path):
    tail = '          end_game([q for q in players if q != p], "a rout")\n'
    errors = _broken(
        tmp_path,
        "tables/combat.yaml",
        tail,
        tail + "    results:\n      Holds:\n        effect: pass\n",
    )
    assert [e.message for e in errors] == [
        "only results of column and matrix tables carry an effect ('rout' is a range table)"
    ]
    assert errors[0].hint == "on a range table, write the effect on its rows"


def test_a_result_program_that_asks_a_decision_is_refused(tmp_path):
    """A result's effect runs inside apply(): it cannot wait for a player."""
    old = '          log "{p} is routed"\n'
    ask = '          let w = choose_yes_no(p, "Flee?")\n'
    errors = _broken(tmp_path, "tables/combat.yaml", old, old + ask)
    assert [e.message for e in errors] == [
        "a table's result program may not ask a player for a decision"
    ], [e.render() for e in errors]
    assert _at(tmp_path, "tables/combat.yaml", "choose_yes_no") == (
        errors[0].pos.line,
        errors[0].pos.col,
    )
    assert errors[0].hint == "ask in the procedure that calls apply(), before or after it"


def test_a_scale_on_a_field_that_is_no_int_is_refused(tmp_path):
    errors = _broken(
        tmp_path,
        "game.yaml",
        "fortress: {type: bool}",
        "fortress: {type: bool, scale: 2}",
    )
    assert [e.message for e in errors] == ["field 'fortress' has a scale but is a bool"]
    assert errors[0].hint == "only an int counts fractions (scale: 2 keeps halves)"


def test_the_shift_of_a_result_from_a_table_value(tmp_path):
    """`r.shift` of a result whose table is a value (Envoys' cities name theirs): 0 where
    the table's results carry no shift."""
    import random

    from compile_helpers import import_generated
    from rulecraft.runtime import Game

    (tmp_path / "generated").mkdir()
    shutil.copytree(FIXTURES / "envoys", tmp_path / "rules" / "envoys")
    rules = tmp_path / "rules" / "envoys" / "rules.yaml"
    old = 'log "{p} courts {c}: {n}, {r.code}: {r.text}"'
    rules.write_text(rules.read_text().replace(old, old[:-1] + ', shift {r.shift}"'))
    compile_into(tmp_path)
    spec = import_generated(tmp_path, "envoys").SPECS["rivals"]
    lines: list[str] = []
    for seed in range(10):
        g = Game.new(spec, None, seed)
        rng = random.Random(seed)
        while not g.finished:
            d = g.pending()[0]
            ids = [o.id for o in d.options]
            g.apply(d.player, "done" if "done" in ids else rng.choice(ids))
        lines += [x for x in g.log_for(None) if " courts " in x]
    assert lines and all(x.endswith(", shift 0") for x in lines), lines[:3]


def test_the_board_prints_a_scaled_field_as_its_number():
    from rulecraft.runtime import Game
    from rulecraft.runtime.tools.terminal import render_view

    g = Game.new(PACKAGE.SPECS["plain"], None, 1)
    g.apply(0, "attack_plan:probe")
    g.apply(1, "defence_plan:withdraw")  # no battle; each general brings his supply
    assert g.state["p"][1]["supply"] == 1  # the count of halves
    board = render_view(g.view(None), g.spec)
    assert "Supply: 0.5" in board and "Supply: 1" in board, board
