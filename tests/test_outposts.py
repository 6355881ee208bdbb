"""Fog of war, several picks and simultaneous plans on an invented game
(tests/fixtures/games/outposts/): units whose identity and strength are hidden while their
position is public (`fog:`), shown to one side by a rule (`reveal u to p`) until they move,
a force formed as one decision (`choose_some` with `min`, `max` and `where`), and combat
plans picked at once from sets that differ per side (`simultaneously:`). The views, logs,
bots' worlds, saves and both forms of the engine follow them (the leak, save/load and form
checks every bundled game gets, run here on the fixture; both forms of the engine:
tests/test_forms.py)."""

from __future__ import annotations

import random
import shutil
from typing import Any

import pytest
from compile_helpers import compile_errors
from fixtures.outposts import ROOT, SPEC
from leak_helpers import differences
from rulecraft.runtime import Game, IllegalDecision
from rulecraft.runtime.named import Fog
from rulecraft.runtime.tools.agents import RandomAgent
from rulecraft.runtime.tools.ismcts import ISMCTSAgent
from rulecraft.runtime.view import determinize
from test_all_scenarios import check_hidden_information, play_random

BLUE, RED = 0, 1
UNITS = SPEC.ids["unit"]
POSTS = SPEC.ids["post"]


def unit(name: str) -> int:
    return UNITS.index(name)


def where(g: Game, seat: int | None, name: str) -> Any:
    """Where ``seat`` sees unit ``name`` (its named view)."""
    return g.view(seat)["e"]["unit"][unit(name)]["at"]


def answer(g: Game, seat: int, option: str) -> None:
    g.apply(seat, option)


def to_march(g: Game, seat: int) -> None:
    """Nobody scouts: on to ``seat``'s march."""
    while g.pending()[0].prompt.startswith("Scout"):
        g.apply(g.pending()[0].player, "none")
    assert g.pending()[0].player == seat


#: both decline to scout; Blue's scouts march from the Hill to the Ford, Red's from the Wood
CONTACT = (
    (BLUE, "none"),
    (RED, "none"),
    (BLUE, "post:hill"),
    (BLUE, "some:blue_scouts"),
    (BLUE, "post:ford"),
    (RED, "post:wood"),
    (RED, "some:red_scouts"),
    (RED, "post:ford"),
    (RED, "yes"),  # attacking is voluntary (Marlborough 16.21)
)


# -- fog of war


def test_a_seat_sees_an_enemy_force_of_unknown_size_at_a_place():
    g = Game.new(SPEC, None, 1)
    # Blue sees where Red stands, not which units nor how many
    assert g.view(BLUE)["fog"] == [
        "Red force of unknown size at Wood",
        "Red force of unknown size at East",
    ]
    for name in ("red_guard", "red_line", "red_scouts", "red_militia"):
        assert where(g, BLUE, name) == {"hidden": True}
        assert g.view(BLUE)["e"]["unit"][unit(name)]["tired"] == {"hidden": True}
    # its own units it sees whole; Red sees its own, and Blue's in the fog
    assert where(g, BLUE, "blue_scouts") == POSTS.index("hill")
    assert where(g, RED, "red_scouts") == POSTS.index("wood")
    assert where(g, RED, "blue_guard") == {"hidden": True}
    assert "Blue force of unknown size at West" in g.view(RED)["fog"]
    # a spectator sees both sides in the fog
    assert len(g.view(None)["fog"]) == 4
    # the bots' view: every hidden Red position is the same value (which stands where is
    # not told)
    V = g.view_state(BLUE)
    slot = SPEC.layout.by_path["e.unit.at"]
    fogs = {V[slot.offset + unit(n)] for n in ("red_guard", "red_scouts", "red_militia")}
    assert fogs == {Fog("unit", RED, (POSTS.index("wood"), POSTS.index("east")))}


def test_scouting_reveals_the_units_at_a_post_to_the_scout_until_they_move():
    g = Game.new(SPEC, None, 1)
    g.apply(BLUE, "post:east")  # Blue scouts East
    for name in ("red_guard", "red_line", "red_militia"):
        assert where(g, BLUE, name) == POSTS.index("east")
        assert where(g, None, name) == {"hidden": True}  # shown to Blue only
    assert where(g, BLUE, "red_scouts") == {"hidden": True}  # Wood was not scouted
    assert "Red force of unknown size at East" not in g.view(BLUE)["fog"]
    assert "Blue scouts East and finds Red Guard, Red Line, Red Militia" in g.log_for(BLUE)
    # the log names units in the fog as the fog names them, once per owner
    assert "Blue scouts East and finds Red force of unknown size" in g.log_for(None)
    g.apply(RED, "post:west")  # Red scouts West
    assert where(g, RED, "blue_guard") == POSTS.index("west")
    g.apply(BLUE, "post:west")  # Blue marches from West ...
    g.apply(BLUE, "some:blue_guard")  # ... with its Guard ...
    g.apply(BLUE, "post:hill")  # ... to the Hill
    assert where(g, RED, "blue_guard") == {"hidden": True}  # it moved: in the fog again
    assert where(g, RED, "blue_line") == POSTS.index("west")  # the others did not
    assert where(g, BLUE, "red_line") == POSTS.index("east")
    # and the log line of the scouting no longer names it to Red
    assert "Red scouts West and finds Blue force of unknown size, Blue Line, Blue Militia" in (
        g.log_for(RED)
    )


def test_contact_reveals_both_sides_to_everyone():
    g = Game.new(SPEC, None, 3)
    for seat, option in CONTACT[:-1]:
        g.apply(seat, option)
    # the attacker is asked about a force it cannot see: the prompt names it as the fog does
    d = g.pending()[0]
    assert d.prompt == "Attack Blue force of unknown size at Ford?"
    assert g.view(RED)["pending"][0]["prompt"] == d.prompt
    for seat in (BLUE, RED, None):  # the twin check holds the prompt to it
        assert differences(SPEC, g.raw, seat, random.Random(1)) == []
    g.apply(RED, "yes")  # an attack: both sides' units at the Ford are shown
    assert where(g, BLUE, "red_scouts") == POSTS.index("ford")
    assert where(g, None, "blue_scouts") == POSTS.index("ford")
    assert where(g, BLUE, "red_guard") == {"hidden": True}


def test_a_bots_world_puts_the_units_in_the_fog_back_at_the_places_shown():
    g = Game.new(SPEC, None, 1)
    V = g.view_state(BLUE)
    slot = SPEC.layout.by_path["e.unit.at"]
    reds = [unit(n) for n in UNITS if n.startswith("red")]
    worlds = set()
    for k in range(40):
        S = determinize(SPEC, V, random.Random(k))
        places = [S[slot.offset + i] for i in reds]
        assert set(places) == {POSTS.index("wood"), POSTS.index("east")}
        worlds.add(tuple(places))
        for i in range(len(UNITS)):  # Blue's own units are where they are
            if i not in reds:
                assert S[slot.offset + i] == g.raw[slot.offset + i]
    assert len(worlds) > 4  # which unit stands where is drawn, not copied from the truth


def test_a_view_that_shows_the_fog_is_caught(monkeypatch):
    """The twin check fails where a view leaks which unit stands where."""
    import importlib

    view_module = importlib.import_module("rulecraft.runtime.view")
    g = Game.new(SPEC, None, 1)
    rng = random.Random(2)
    assert differences(SPEC, g.raw, BLUE, rng) == []
    monkeypatch.setattr(view_module, "in_fog", lambda spec, S, player: {})
    monkeypatch.setattr(SPEC, "hidden_slots", ())
    leaks = differences(SPEC, g.raw, BLUE, rng)
    assert {"view", "export", "view_state"} <= set(leaks)


# -- several picks


def test_a_force_is_formed_as_one_decision_with_min_max_and_a_condition():
    g = Game.new(SPEC, None, 1)
    to_march(g, BLUE)
    g.apply(BLUE, "post:west")
    d = g.pending()[0]
    assert d.kind == "choose-some" and d.prompt == "Form a force"
    ids = [o.id for o in d.options]
    # one to three of the units at West, the fewest first; never over 5 strong (where=)
    assert ids == [
        "some:blue_guard",
        "some:blue_line",
        "some:blue_militia",
        "some:blue_guard+blue_line",
        "some:blue_guard+blue_militia",
        "some:blue_line+blue_militia",
    ]
    assert [o.label for o in d.options][3] == "Blue Guard, Blue Line"
    with pytest.raises(IllegalDecision):
        g.apply(BLUE, "some:blue_guard+blue_line+blue_militia")  # 6 strong
    g.apply(BLUE, "some:blue_line+blue_militia")
    g.apply(BLUE, "post:hill")
    assert g.state["e"]["unit"][unit("blue_line")]["at"] == POSTS.index("hill")
    assert g.state["e"]["unit"][unit("blue_guard")]["at"] == POSTS.index("west")


# -- simultaneous plans whose sets differ per side


def test_combat_plans_are_picked_at_once_from_each_sides_own_set():
    g = Game.new(SPEC, None, 3)
    for seat, option in CONTACT:
        g.apply(seat, option)
    pend = g.pending()
    assert [(d.player, d.kind) for d in pend] == [
        (RED, "choose-attack_plan"),
        (BLUE, "choose-defence_plan"),
    ]
    assert [o.id for o in pend[0].options] == [
        "attack_plan:probe",
        "attack_plan:assault",
        "attack_plan:feint",
    ]
    assert [o.id for o in pend[1].options] == ["defence_plan:hold", "defence_plan:withdraw"]
    g.apply(BLUE, "defence_plan:hold")
    # Red cannot see Blue's plan before it picks its own
    assert g.view(RED)["answers"] == {}
    assert g.view(BLUE)["answers"] == {str(BLUE): "hold"}
    assert differences(SPEC, g.raw, RED, random.Random(1)) == []
    g.apply(RED, "attack_plan:assault")
    assert "Red attacks Ford with assault against hold: 1 to 2" in g.log_for(None)
    assert "Red Scouts driven off Ford" in g.log_for(None)


# -- what every bundled game gets: leaks, save/load, both forms, bots


@pytest.mark.parametrize("seed", range(8))
def test_views_saves_and_forms_hold_along_random_games(seed):
    g, taken = play_random(SPEC, "outposts/road", seed)
    rng = random.Random(seed)
    h = Game.new(SPEC, None, seed)
    for k, (p, oid) in enumerate(taken):
        if k % 3 == 0:
            check_hidden_information(h, rng)
        h.apply(p, oid)
    check_hidden_information(h, rng)
    # a save at a random decision, loaded and played on, ends as the game did
    cut = random.Random(seed * 31 + 7).randrange(len(taken) + 1)
    h = Game.new(SPEC, None, seed)
    for p, oid in taken[:cut]:
        h.apply(p, oid)
    restored = Game.from_json(h.to_json(), SPEC)
    for p, oid in taken[cut:]:
        restored.apply(p, oid)
    assert restored.state["log"] == g.state["log"] and restored.result == g.result
    assert restored.to_json() == g.to_json()


def test_bots_play_the_game_to_its_end():
    for agents in (
        [RandomAgent(1), RandomAgent(2)],
        [ISMCTSAgent(1, iterations=20), RandomAgent(3)],
    ):
        g = Game.new(SPEC, None, 5)
        while not g.finished:
            d = g.pending()[0]
            a = agents[d.player]
            view = g.view_state(d.player) if getattr(a, "needs_view", False) else None
            g.apply(d.player, a.choose(view, d, SPEC))
        assert g.result["reason"] == "the strongest holds the road"


# -- errors a designer sees


def _errors(tmp_path, file: str, old: str, new: str) -> str:
    root = tmp_path
    (root / "rules").mkdir()
    shutil.copytree(ROOT / "rules" / "outposts", root / "rules" / "outposts")
    path = root / "rules" / "outposts" / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return "\n".join(f"{d.pos}: {d.message} ({d.hint})" for d in compile_errors(root))


def test_fog_needs_a_place_field_and_an_owner(tmp_path):
    text = (ROOT / "rules" / "outposts" / "game.yaml").read_text()
    line = text[: text.index("fog: {at: at,")].count("\n") + 1
    errors = _errors(tmp_path, "game.yaml", "fog: {at: at,", "fog: {at: tired,")
    assert f"rules/outposts/game.yaml:{line}:" in errors
    assert "fog of war needs a field 'tired' of unit that holds a record" in errors
    (tmp_path / "b").mkdir()
    errors = _errors(tmp_path / "b", "game.yaml", "owner: {type: player, optional: true}", "")
    assert "unit needs an attribute 'owner' of type player" in errors


def test_fog_reveal_of_a_record_without_fog_is_an_error(tmp_path):
    errors = _errors(
        tmp_path, "rules.yaml", "              reveal u to p", "              reveal x to p"
    )
    assert "reveal shows a field" in errors


def test_choose_some_where_must_name_a_function_of_the_pick(tmp_path):
    errors = _errors(tmp_path, "rules.yaml", "where=fits(p)", "where=fits(p, p)")
    assert "fits() takes 2 arguments; where= gives all but the last" in errors
    (tmp_path / "b").mkdir()
    errors = _errors(tmp_path / "b", "rules.yaml", "where=fits(p)", "where=strength_at(p)")
    assert "needs a function whose last parameter takes the pick (list of unit)" in errors
    assert "strength_at takes post and returns int" in errors


def test_simultaneously_lines_are_decisions_of_their_own(tmp_path):
    errors = _errors(
        tmp_path,
        "rules.yaml",
        '          let d = choose(q, defence_plan, "Choose a defence plan")',
        '          let d = choose(q, [x for x in defence_plan if a == "probe"], "Choose")',
    )
    assert "'a' is not known yet: the decisions of `simultaneously:` are asked at once" in errors


def test_the_terminal_board_says_where_the_enemy_stands_not_who():
    from rulecraft.runtime.tools.terminal import render_view

    g = Game.new(SPEC, None, 1)
    board = render_view(g.view(BLUE), SPEC)
    assert "in the fog of war:\n    Red force of unknown size at Wood\n" in board
    assert "Blue Guard" in board and "Red Guard" not in board
    g.apply(BLUE, "post:east")  # scouted: the units at East are listed by name
    board = render_view(g.view(BLUE), SPEC)
    assert "Red Guard" in board and "Red Scouts" not in board


def test_an_ismcts_bot_chooses_from_what_it_sees_only():
    """In a state and a twin that differs only in what the bot's seat cannot see (which Red
    unit stands where in the fog, and their hidden fields), the bot gets the same view and
    makes the same choice."""
    from leak_helpers import disguise

    checked = 0
    for seed in range(4):
        g, taken = play_random(SPEC, "outposts/road", seed)
        h = Game.new(SPEC, None, seed)
        for p, oid in taken[: len(taken) // 2]:
            h.apply(p, oid)
        d = h.pending()[0]
        twin = Game(SPEC, disguise(SPEC, h.raw, d.player, random.Random(seed)))
        if twin.raw == h.raw:
            continue
        V, W = h.view_state(d.player), twin.view_state(d.player)
        assert V == W
        a = ISMCTSAgent(seed, iterations=30).choose(V, d, SPEC)
        b = ISMCTSAgent(seed, iterations=30).choose(W, d, SPEC)
        assert a == b and a in {o.id for o in d.options}
        checked += 1
    assert checked >= 2


def test_a_units_of_nobody_are_seen_by_all_and_reveals_end_with_the_round():
    """Marlborough 26.2: neutral units may always be examined. A rule ends the reveals of
    the round (`u.seen = []`)."""
    g = Game.new(SPEC, None, 1)
    for seat in (BLUE, RED, None):
        assert where(g, seat, "ford_watch") == POSTS.index("ford")
    g.apply(BLUE, "post:east")  # Blue scouts East
    assert where(g, BLUE, "red_line") == POSTS.index("east")
    for seat, option in ((RED, "none"), (BLUE, "none"), (RED, "none")):
        g.apply(seat, option)  # nobody marches: the round ends
    assert g.state["turn"] == 2
    assert where(g, BLUE, "red_line") == {"hidden": True}


def test_the_research_adapters_number_several_picks_and_hide_the_fog():
    """The shared action space gives a `choose_some` decision numbered slots (its picks are
    no fixed domain), and the observation of a twin in the fog is the same."""
    import numpy as np
    from leak_helpers import disguise
    from rulecraft.runtime.adapters.encoding import ActionMap, ObservationEncoder

    actions = ActionMap(SPEC, 4)
    encoder = ObservationEncoder(SPEC)
    g = Game.new(SPEC, None, 2)
    rng = random.Random(2)
    kinds = set()
    while not g.finished:
        d = g.pending()[0]
        kinds.add(d.kind)
        legal = next(x for x in actions.legal(g) if x.player == d.player)
        if d.kind == "choose-some":
            assert all(a >= actions.base for a in legal.actions)  # numbered slots
            assert len(legal.actions) == min(len(d.options), 4)
        twin = Game(SPEC, disguise(SPEC, g.raw, d.player, rng))
        a, b = np.zeros(encoder.size), np.zeros(encoder.size)
        encoder.encode(g, d.player, a)
        encoder.encode(twin, d.player, b)
        assert (a == b).all()
        g.apply_index(d.player, legal.option_index(rng.choice(legal.actions)))
    assert "choose-some" in kinds


def test_a_simultaneously_block_that_asks_one_player_twice_is_a_rules_error(tmp_path):
    from compile_helpers import compile_into, import_generated
    from rulecraft.runtime import RulesError

    (tmp_path / "rules").mkdir()
    (tmp_path / "generated").mkdir()
    shutil.copytree(ROOT / "rules" / "outposts", tmp_path / "rules" / "outposts")
    path = tmp_path / "rules" / "outposts" / "rules.yaml"
    text = path.read_text()
    old = 'let d = choose(q, defence_plan, "Choose a defence plan")'
    assert old in text
    path.write_text(text.replace(old, old.replace("(q,", "(p,")))
    compile_into(tmp_path)
    spec = import_generated(tmp_path, "outposts").SPECS["road"]
    g = Game.new(spec, None, 3)
    for seat, option in CONTACT[:-1]:
        g.apply(seat, option)
    with pytest.raises(RulesError, match="asks one player twice") as caught:
        g.apply(RED, "yes")
    assert "rules/outposts/rules.yaml" in str(caught.value.origin)
