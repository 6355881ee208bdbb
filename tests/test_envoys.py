"""The constructs of diplomacy games on an invented game (tests/fixtures/games/envoys/):
`allocate` (a secret split as one decision), hidden per-record values and `reveal`, tables
read from effects (`lookup` result records, `modifiers`, `allows`, `apply`, `match`, table
values) and external facts (`report`)."""

from __future__ import annotations

import random

import pytest
from compile_helpers import compile_errors, import_generated
from fixtures.envoys import ROOT, SPEC
from rulecraft.runtime import Game, IllegalDecision, Split
from rulecraft.runtime.tools.agents import MonteCarloAgent, RandomAgent
from rulecraft.runtime.view import determinize

EAST, WEST = 0, 1


def new_game(seed: int = 3) -> Game:
    g = Game.new(SPEC, None, seed)
    g.apply(EAST, "done")  # nothing changed in the world
    return g


def missions(g: Game, viewer: int | None) -> dict[str, object]:
    return {m["id"]: m["envoys"] for m in g.view(viewer)["e"]["mission"]}


# -- allocate


def test_split_numbers_every_allocation_once():
    s = Split(4, ("a", "b", "c"), 2)
    every = list(s)
    brute = [(a, b, c) for a in range(3) for b in range(3) for c in range(3) if a + b + c <= 4]
    assert len(every) == len(set(every)) == len(brute) == len(s)
    assert every[0] == ()
    assert all(s.index(v) == i for i, v in enumerate(every))
    assert ("a", "a", "a") not in s  # more than max_each on one
    assert ("b", "a") not in s  # not in the order of the targets
    assert len(Split(-3, ("a",))) == 1  # negative points: only "nothing"
    assert len(Split(11, range(20), 6)) == 84459795  # never listed


def test_allocation_is_one_decision_with_readable_ids():
    g = new_game()
    (d_east, d_west) = g.pending()
    assert d_east.kind == "allocate" and d_east.prompt == "Send your envoys"
    assert len(d_east.options) == len(Split(4, range(3), 2))
    assert d_east.options[0].id == "alloc:none"
    assert g.is_legal(EAST, "alloc:east_port=2,east_abbey=2")
    assert not g.is_legal(EAST, "alloc:east_port=3,east_abbey=1")  # more than half on one
    assert not g.is_legal(EAST, "alloc:east_port=2,east_abbey=2,east_fort=1")  # 5 > 4 points
    assert not g.is_legal(EAST, "alloc:west_port=1")  # not one of East's targets
    with pytest.raises(IllegalDecision, match="at most 4 points, at most 2 on one"):
        g.apply(EAST, "alloc:east_port=3")
    g.apply(EAST, "alloc:east_port=2,east_abbey=1")
    assert g.state["e"]["mission"][0]["envoys"] == 0  # written once both have decided
    g.apply(WEST, "alloc:none")
    assert g.state["e"]["mission"][0]["envoys"] == 2
    assert g.state["e"]["mission"][1]["envoys"] == 1


def test_random_bots_draw_allocations_and_mc_samples_them():
    g = new_game()
    d = g.pending()[0]
    seen = {RandomAgent(seed).choose(None, d, SPEC) for seed in range(30)}
    assert len(seen) > 10 and all(g.is_legal(EAST, oid) for oid in seen)
    mc = MonteCarloAgent(1, playouts=2)
    assert g.is_legal(EAST, mc.choose(g.view_state(EAST), d, SPEC))


# -- hidden values and reveals


def test_commitments_are_secret_until_the_named_city_is_revealed():
    """Rules: TR-DIP-COMMIT-01, TR-DIP-ATT-06 (on the invented game)."""
    g = new_game()
    g.apply(EAST, "alloc:east_port=2,east_abbey=2")
    assert missions(g, WEST)["east_port"] == {"hidden": True}  # West waits: East's is secret
    g.apply(WEST, "alloc:west_port=1,west_fort=2")
    assert missions(g, EAST)["west_fort"] == {"hidden": True}
    assert missions(g, WEST)["east_abbey"] == {"hidden": True}
    assert missions(g, None)["east_port"] == {"hidden": True}
    g.apply(EAST, "city:port")
    for viewer in (EAST, WEST, None):  # only the named city's envoys, to everyone
        seen = missions(g, viewer)
        assert seen["east_port"] == 2 and seen["west_port"] == 1
    assert missions(g, WEST)["east_abbey"] == {"hidden": True}
    assert missions(g, EAST)["west_fort"] == {"hidden": True}
    assert g.raw[2] == 2  # two reveals: undo stops there


def test_a_new_value_is_secret_again_and_bots_never_see_it():
    g = new_game()
    g.apply(EAST, "alloc:east_port=2,east_abbey=2")
    g.apply(WEST, "alloc:west_port=1,west_fort=2")
    g.apply(EAST, "city:port")
    while g.pending() and g.pending()[0].kind != "report":
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    g.apply(EAST, "done")
    assert missions(g, WEST)["east_port"] == 2  # still the value revealed
    g.apply(EAST, "alloc:east_port=1")
    g.apply(WEST, "alloc:none")
    assert missions(g, WEST)["east_port"] == {"hidden": True}  # committed anew: hidden
    view = g.view_state(WEST)
    S = determinize(SPEC, view, random.Random(1))
    assert S[SPEC.layout.by_path["e.mission.envoys"].offset + 1] == 0  # drawn, not read


# -- tables in effects


def test_table_programs_modifiers_conditions_and_results():
    g = new_game(seed=5)
    g.apply(EAST, "alloc:east_port=2")
    g.apply(WEST, "alloc:none")
    engine = SPEC.engine
    S = g.raw
    port, abbey = 0, 1
    assert engine.f_tbl__port__mods(S, port) == 0
    S[SPEC.layout.by_path["g.fleets"].offset] = 3
    assert engine.f_tbl__port__mods(S, port) == 3  # value × times
    S[SPEC.layout.by_path["g.plague"].offset] = "plague"
    assert engine.f_tbl__port__mods(S, port) == 1  # and when
    assert engine.f_tbl__port__allows(S, port)
    S[SPEC.layout.by_path["g.harbour_open"].offset] = False
    assert not engine.f_tbl__port__allows(S, port)
    assert engine.f_tbl__abbey__mods(S, abbey) == 0


def test_lookup_results_open_ends_and_permanent_results():
    from fixtures.envoys import PACKAGE

    module = __import__(PACKAGE.__name__ + ".engine", fromlist=["_lookup"])
    table = PACKAGE.SPECS["rivals"].engine.tabs[0]  # abbey
    low = module._lookup(table, 0, -4)
    assert low[2] == "2"  # lower than the first row counts as the first
    high = module._lookup(table, 0, 11)
    assert high[2] == "6+" and high[4] is True


def test_playing_whole_games_courts_and_applies_results():
    codes = set()
    for seed in range(40):
        g = Game.new(SPEC, None, seed)
        rng = random.Random(seed)
        while not g.finished:
            d = g.pending()[0]
            if d.kind == "report":
                g.apply(d.player, "done")
                continue
            g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
        for line in g.log_for(None):
            if " courts " in line:
                codes.add(line.split(", ")[1].split(":")[0])
    assert {"Calm", "Ally", "2", "3-5", "6+"} <= codes


def test_match_names_unknown_result_codes(tmp_path):
    import shutil

    root = tmp_path
    (root / "rules").mkdir()
    shutil.copytree(ROOT / "rules" / "envoys", root / "rules" / "envoys")
    rules = root / "rules" / "envoys" / "rules.yaml"
    rules.write_text(
        rules.read_text().replace("c.table, n)", '"port", n)').replace('"Ally", "6+"', '"Aly"')
    )
    errors = [d.message for d in compile_errors(root)]
    assert errors == ["table 'port' has no result 'Aly'"]


# -- external facts


def test_report_changes_one_fact_and_logs_it():
    g = Game.new(SPEC, None, 3)
    d = g.pending()[0]
    ids = [o.id for o in d.options]
    assert ids[:3] == ["report:harbour_open=no", "report:plague=unrest", "report:plague=plague"]
    assert ids[-1] == "done" and "report:fleets=3" in ids and "report:fleets=0" not in ids
    g.apply(EAST, "report:plague=plague")
    assert g.state["g"]["plague"] == "plague"
    assert "Reported: Plague → plague" in g.log_for(WEST)
    assert g.pending()[0].kind == "report"  # the loop asks again until done
    g.apply(EAST, "done")
    assert g.pending()[0].kind == "allocate"


def test_a_game_saved_during_the_secret_split_resumes():
    g = new_game()
    g.apply(EAST, "alloc:east_port=2,east_abbey=2")
    text = g.to_json()
    h = Game.from_json(text, SPEC)
    assert [d.seat for d in h.pending()] == ["west"]
    h.apply(WEST, "alloc:west_fort=2")
    assert h.pending()[0].kind == "choose-city"
    assert import_generated  # the fixture imports the generated package once


def test_terminal_play_types_an_allocation(capsys):
    import io

    from rulecraft.runtime.tools.terminal import play

    # an empty line where the screen passes to the other player
    moves = "done\nport=2 abbey=2\n\nport=1 fort=9\nwest_fort=2\n\nq\n"
    out = io.StringIO()
    play(SPEC, "rivals", ["human", "human"], 3, input=io.StringIO(moves), output=out)
    text = out.getvalue()
    assert "Split up to 4 points, at most 2 on one, over:" in text
    assert "fort=9 is over the limit: at most 2 points on one target." in text
    assert "--- Pass to West and press Enter ---" in text
    assert "other players look away" in text
    assert "Name a city to court" in text  # both allocations were taken


def test_one_person_at_several_seats_is_not_asked_to_look_away():
    import io

    from rulecraft.runtime.tools.terminal import play

    moves = "done\nnone\nnone\nq\n"
    out = io.StringIO()
    play(SPEC, "rivals", ["human:ann", "human:ann"], 3, input=io.StringIO(moves), output=out)
    assert "look away" not in out.getvalue()
    out = io.StringIO()
    play(SPEC, "rivals", ["human:ann", "human:bob"], 3, input=io.StringIO(moves), output=out)
    assert "--- bob (West) to decide; other players look away ---" in out.getvalue()


def test_a_table_id_in_quotes_is_checked_where_a_table_is_meant(tmp_path):
    import shutil

    shutil.copytree(ROOT / "rules" / "envoys", tmp_path / "rules" / "envoys")
    rules = tmp_path / "rules" / "envoys" / "rules.yaml"
    rules.write_text(rules.read_text().replace('c.table != "port"', 'c.table != "portt"'))
    assert [d.message for d in compile_errors(tmp_path)] == ["unknown table 'portt'"]


def test_a_global_named_like_an_enum_is_refused(tmp_path):
    import shutil

    shutil.copytree(ROOT / "rules" / "envoys", tmp_path / "rules" / "envoys")
    game = tmp_path / "rules" / "envoys" / "game.yaml"
    game.write_text(
        game.read_text().replace("    round: {", "    mood: {type: mood}\n    round: {")
    )
    errors = [d.message for d in compile_errors(tmp_path)]
    assert errors == ["global 'mood' has the name of enum 'mood', which the name means in effects"]


def test_comparing_a_result_code_with_a_text_the_table_never_gives_is_an_error(tmp_path):
    """A code compared with == is checked like a case of match (it once hid a Spain that
    was always Franco: `r.code == "6"` where the table prints "Loyalists won; roll again")."""
    import shutil

    shutil.copytree(ROOT / "rules" / "envoys", tmp_path / "rules" / "envoys")
    rules = tmp_path / "rules" / "envoys" / "rules.yaml"
    text = rules.read_text().replace("c.table, n)", '"port", n)')
    rules.write_text(
        text.replace("      if r.permanent:", '      if r.code == "5+" or r.permanent:')
    )
    errors = [(d.message, d.hint) for d in compile_errors(tmp_path)]
    assert ("table 'port' has no result '5+'", "results: Closed, Calm, Ally") in errors
    assert len(errors) == 2  # and the match's case "6+", a code of the abbey's table


def test_plural_picks_the_word_for_the_number(tmp_path):
    import shutil

    shutil.copytree(ROOT / "rules" / "envoys", tmp_path / "rules" / "envoys")
    rules = tmp_path / "rules" / "envoys" / "rules.yaml"
    rules.write_text(
        rules.read_text().replace(
            '      log "{p} courts {c}: {n}, {r.code}: {r.text}"',
            '      let w = plural(envoys_at(p, c), "envoy", "envoys")\n'
            '      log "{p} courts {c} with {envoys_at(p, c)} {w}"\n'
            '      log "{p} courts {c}: {n}, {r.code}: {r.text}"',
        )
    )
    (tmp_path / "generated").mkdir()
    from compile_helpers import compile_into

    compile_into(tmp_path)
    spec = import_generated(tmp_path, "envoys").SPECS["rivals"]
    lines = []
    for east, west in (("alloc:east_port=1", "alloc:none"), ("alloc:east_port=2", "alloc:none")):
        g = Game.new(spec, None, 3)
        g.apply(EAST, "done")
        g.apply(EAST, east)
        g.apply(WEST, west)
        g.apply(EAST, "city:port")
        lines += [t for t in g.log_for(None) if "courts Port with" in t]
    assert lines == ["East courts Port with 1 envoy", "East courts Port with 2 envoys"]


def test_terminal_answers_a_single_option_at_once_against_bots():
    import io

    from rulecraft.runtime.tools.terminal import play

    # West (a human) sends one envoy, to the port only: the city to court is then the port
    def run(auto: bool | None) -> str:
        out = io.StringIO()
        moves = "port=1\n" + "q\n"
        play(
            SPEC, "rivals", ["random", "human"], 0, input=io.StringIO(moves), output=out, auto=auto
        )
        return out.getvalue()

    text = run(None)  # default: on, since a bot plays
    assert "West: Name a city to court - Port (the only option)" in text
    text = run(False)
    assert "(the only option)" not in text and "1. Port  [city:port]" in text


def test_modifier_terms_name_the_modifiers_that_add_something(tmp_path):
    """`modifier_terms(table, args)` in a log line: the modifiers of `modifiers()` that add
    something, each by its `name:` or its text without "Add 1", with its sign; nothing for a
    table without them (the abbey), for a table value and a table named in quotes."""
    import shutil

    shutil.copytree(ROOT / "rules" / "envoys", tmp_path / "rules" / "envoys")
    rules = tmp_path / "rules" / "envoys" / "rules.yaml"
    rules.write_text(
        rules.read_text().replace(
            '      log "{p} courts {c}: {n}, {r.code}: {r.text}"',
            '      log "{p} rolls for {c}{modifier_terms(c.table, c)} = {n}"\n'
            '      let pt = modifier_terms("port", c)\n'
            '      log "the port would add{pt}"\n'
            '      log "{p} courts {c}: {n}, {r.code}: {r.text}"',
        )
    )
    tables = tmp_path / "rules" / "envoys" / "tables" / "cities.yaml"
    tables.write_text(
        tables.read_text().replace(
            "      text: Subtract 2 while the plague rages.\n",
            "      text: Subtract 2 while the plague rages.\n      name: Plague\n",
        )
    )
    (tmp_path / "generated").mkdir()
    from compile_helpers import compile_into

    compile_into(tmp_path)
    spec = import_generated(tmp_path, "envoys").SPECS["rivals"]
    g = Game.new(spec, None, 3)
    g.state["g"]["fleets"] = 2
    g.state["g"]["plague"] = "plague"
    g.reask()
    g.apply(EAST, "done")
    g.apply(EAST, "alloc:east_port=1")
    g.apply(WEST, "alloc:none")
    g.apply(EAST, "city:port")
    log = g.log_for(None)
    rolled = next(t for t in log if t.startswith("East rolls for Port"))
    assert rolled.startswith("East rolls for Port, for each fleet in the harbour +2, Plague -2 = ")
    assert "the port would add, for each fleet in the harbour +2, Plague -2" in log
    g = Game.new(spec, None, 3)  # no fleets, no plague: nothing is named
    g.apply(EAST, "done")
    g.apply(EAST, "alloc:east_port=1")
    g.apply(WEST, "alloc:none")
    g.apply(EAST, "city:port")
    assert any(t.startswith("East rolls for Port = ") for t in g.log_for(None))
    assert "the port would add" in g.log_for(None)
