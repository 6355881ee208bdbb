"""Regression tests of what the fuzzers found (tests/test_fuzz_*.py, ``-m fuzz``): each
class of finding keeps a small test here, run by default."""

from __future__ import annotations

from compile_helpers import compile_errors
from fuzz_helpers import scratch


def test_a_broken_table_a_scenario_names_is_an_error_not_a_crash() -> None:
    """Found by the rules mutation fuzzer (envoys, a range '2' made '1e3'): the table was
    left out with an error, and generating the scenario that names it raised ValueError."""
    root = scratch("envoys")
    cities = root / "rules" / "envoys" / "tables" / "cities.yaml"
    text = cities.read_text()
    cities.write_text(text.replace("- {range: '2', result: '2'", "- {range: '1e3', result: '2'"))
    [err] = compile_errors(root, generate=True)
    assert err.message == "malformed range '1e3'"
    assert (err.pos.file, err.pos.line) == ("rules/envoys/tables/cities.yaml", 42)


def test_a_save_with_malformed_answers_is_refused() -> None:
    """Found by the save fuzzer: an answer that is not a [seat, answer] pair raised TypeError.
    (Saves were positions then; a position is now read only by Game.from_position.)"""
    import json

    import pytest
    from rulecraft.runtime import Game
    from rulecraft.runtime.named import SaveError

    data = json.loads(Game.named("march_of_progress/thirty_years_war", 1).position_json())
    data["answers"] = [["blue", 1], 5]
    with pytest.raises(SaveError, match=r"list of \[seat, answer\] pairs"):
        Game.from_position(json.dumps(data))


def test_a_decision_of_no_player_is_a_rules_error() -> None:
    """Found by the save fuzzer: damaged locals in a saved frame loaded, and the next
    decision, asked of the player None, raised TypeError in Game.pending()."""
    import pytest
    from fixtures.toy import SPEC
    from rulecraft.runtime import Game, RulesError
    from rulecraft.runtime.layout import PENDING

    g = Game.new(SPEC, "duel", 1)
    d = g.raw[PENDING][0]
    g.raw[PENDING] = ((None, *d[1:]),)
    with pytest.raises(RulesError, match=r"is asked of no player: None"):
        g.pending()


def test_first_of_an_empty_list_is_a_rules_error_that_says_so() -> None:
    """Found by the effects fuzzer (`move first(red.deck) from red.deck to red.discard` with
    an empty deck): first() of a list compiled to `[0]`, and the game stopped with Python's
    'IndexError: tuple index out of range'."""
    import pytest
    from compile_helpers import compile_into, import_generated
    from rulecraft.runtime import Game, RulesError

    root = scratch("toy")
    flow = root / "rules" / "toy" / "flow.yaml"
    old = '      let raise = choose_yes_no(red, "Raise the stakes to 2 VP?")\n'
    text = flow.read_text()
    assert text.count(old) == 1
    flow.write_text(
        text.replace(old, "      let nobody = first([p for p in players if false])\n" + old)
    )
    compile_into(root)
    spec = import_generated(root, "toy").SPECS["duel"]
    with pytest.raises(RulesError, match=r"first\(\) of an empty list") as err:
        g = Game.new(spec, "duel", 1)
        for _ in range(10):  # the step runs once both players have picked a card
            d = g.pending()[0]
            g.apply(d.player, d.options[0].id)
    assert err.value.origin and "rules/toy/flow.yaml" in str(err.value)


def test_a_simultaneous_decision_whose_body_only_logs_compiles() -> None:
    """Found by the rules mutation fuzzer (toy, `move c from p.hand to p.played` deleted in
    the `simultaneously` block): the playout form drops log lines, and the loop over the
    players' answers was left without a body ("generated code does not parse")."""
    from compile_helpers import compile_into, import_generated
    from forms_helpers import lockstep

    root = scratch("toy")
    flow = root / "rules" / "toy" / "flow.yaml"
    old = "          move c from p.hand to p.played\n"
    text = flow.read_text()
    assert text.count(old) == 1
    flow.write_text(text.replace(old, ""))
    compile_into(root)
    spec = import_generated(root, "toy").SPECS["duel"]
    # no card is played, so the trick finds none revealed: both forms stop at that line
    rec = lockstep(spec, 1)
    assert rec.machine.error is not None and "first() of an empty list" in rec.machine.error[2]


def test_a_record_naming_a_table_that_is_not_there_is_an_error_not_a_crash() -> None:
    """Found by the rules mutation fuzzer (envoys, tables/cities.yaml cut short at byte 886,
    which leaves out the table `abbey`): the scenario's cities still name it, the checker let
    it through, and generating the engine raised "ValueError: tuple.index(x): x not in
    tuple". A value of type table must name a table of the game."""
    root = scratch("envoys")
    cities = root / "rules" / "envoys" / "tables" / "cities.yaml"
    cities.write_bytes(cities.read_bytes()[:886])
    errors = compile_errors(root, generate=True)
    assert [(e.code, e.message) for e in errors] == [
        ("unknown-name", "abbey's 'table': unknown table 'abbey'"),
        ("unknown-name", "fort's 'table': unknown table 'abbey'"),
    ]
    scenario = "rules/envoys/scenarios/rivals.yaml"
    assert [(e.pos.file, e.pos.line, e.pos.col) for e in errors] == [
        (scenario, 15, 33),
        (scenario, 16, 31),
    ]
