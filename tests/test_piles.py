"""Shared piles, list indexing, ``reversed()`` and optional attributes on an invented game
(tests/fixtures/games/piles/): cards move between the game's piles (a hidden draw pile, a
discard pile, an Active Events row) and the players' hands in every direction; the draw
pile's top is ``draw_pile[0]``; events score in reverse order of play
(``reversed(played)``), the last one played is ``played[-1]``; cards omit the optional
attributes ``bonus`` and ``shrine``, read as none. The views, the leak check and both forms
of the engine follow them (issue 24, item 6)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from compile_helpers import compile_errors, compile_into, import_generated
from fixtures.piles import ROOT, SPEC
from forms_helpers import lockstep
from rulecraft.runtime import Game, RulesError
from test_all_scenarios import check_hidden_information, play_random

FLOW = "rules/piles/flow.yaml"


def _copy(tmp_path: Path) -> Path:
    """A scratch project with a copy of the piles game."""
    (tmp_path / "generated").mkdir()
    shutil.copytree(ROOT / "rules", tmp_path / "rules")
    return tmp_path


def _edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / "rules" / "piles" / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def _card(name: str) -> int:
    return SPEC.ids["card"].index(name)


def test_a_game_plays_to_its_end_moving_cards_through_shared_piles() -> None:
    for seed in range(4):
        g, taken = play_random(SPEC, "start", seed)
        assert g.finished and taken
        state = g.state
        # every card is somewhere: the pile, the discard, a hand; the events row is empty
        held = [*state["g"]["draw_pile"], *state["g"]["discard"]]
        for p in state["p"]:
            held += p["hand"]
        assert sorted(held) == list(range(len(SPEC.ids["card"]))), held
        assert state["g"]["active_events"] == [] and len(state["g"]["discard"]) == 3


def test_the_top_card_of_the_draw_pile_goes_to_the_hand() -> None:
    g = Game.new(SPEC, None, 5)
    pile = g.state["g"]["draw_pile"]
    hands = [p["hand"] for p in g.state["p"]]
    assert len(pile) == 4 and all(len(h) == 2 for h in hands)
    # the set-up drew the top cards in turn: what is left is the rest of the shuffled pile
    assert sorted([*pile, *hands[0], *hands[1]]) == list(range(len(SPEC.ids["card"])))


def test_a_card_moved_into_the_hidden_pile_is_hidden_and_views_show_the_shared_rows() -> None:
    g = Game.new(SPEC, None, 2)
    rng = random.Random(2)
    seen_events = False
    while not g.finished:
        check_hidden_information(g, rng)
        for seat in (None, 0, 1):  # nobody sees the draw pile, only its size
            assert g.view(seat)["g"]["draw_pile"] == {"hidden": len(g.state["g"]["draw_pile"])}
        if g.state["g"]["active_events"]:
            seen_events = True
            assert g.view(None)["g"]["active_events"] == g.state["g"]["active_events"]
        d = g.pending()[0]
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    assert seen_events


def test_events_score_in_reverse_order_of_play_with_optional_bonuses() -> None:
    g = Game.new(SPEC, None, 1)
    first = g.pending()[0]
    hand0 = [o.id.split(":")[1] for o in first.options]
    c0 = hand0[0]
    g.apply(first.player, f"card:{c0}")
    second = g.pending()[0]
    c1 = second.options[0].id.split(":")[1]
    g.apply(second.player, f"card:{c1}")
    worth = {
        "ember": 1, "flood": 5, "gale": 3, "quake": 3,
        "frost": 4, "drought": 1, "comet": 2, "eclipse": 3,
    }  # fmt: skip
    # reversed: the last card played scores for the first seat, the first for the second
    vps = [p["vp"] for p in g.state["p"]]
    assert vps == [worth[c1], worth[c0]]
    assert g.state["g"]["discard"] == [_card(c1)]  # played[-1]
    assert _card(c0) in g.state["g"]["draw_pile"]  # back under the hidden pile
    log = "\n".join(str(line) for line in g.log_for(None))
    assert f"scores {worth[c1]} for North" in log
    lead = min(_card(c0), _card(c1))  # a set lists its cards in the order cards.yaml does
    assert f"{SPEC.ids['card'][lead].capitalize()} leads the Active Events row" in log


def test_both_forms_play_the_same_games() -> None:
    for seed in range(6):
        rec = lockstep(SPEC, seed)
        assert rec.machine.error is None and not rec.machine.cut


def test_an_index_out_of_range_is_a_rules_error_at_its_line(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root, "flow.yaml", "let last = played[-1]", "let last = played[-3]")
    compile_into(root)
    spec = import_generated(root, "piles").SPECS["start"]
    g = Game.new(spec, None, 1)
    with pytest.raises(RulesError, match=r"flow\.yaml:\d+:\d+: .*index -3 is out of range"):
        for _ in range(4):
            d = g.pending()[0]
            g.apply(d.player, d.options[0].id)


def test_an_element_of_a_list_cannot_be_assigned(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root, "flow.yaml", "      played = []", "      played[0] = last")
    errors = compile_errors(root)
    assert [d.message for d in errors] == ["only a variable or a field can be assigned"]
    assert errors[0].pos is not None


def test_indexing_is_type_checked(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root, "flow.yaml", "let p = players[i]", 'let p = players["x"]')
    _edit(root, "flow.yaml", "let last = played[-1]", "let last = turn[0]")
    errors = [d.message for d in compile_errors(root)]
    assert any("str" in m for m in errors), errors
    assert any("int" in m and "list" in m for m in errors), errors


def test_a_field_of_an_optional_attribute_needs_a_test(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(
        root,
        "rules.yaml",
        "      if c.shrine != none:\n          n = n + c.shrine.worth",
        "      n = n + c.shrine.worth",
    )
    errors = compile_errors(root)
    assert any("none" in d.message for d in errors), [d.message for d in errors]


def test_counting_with_an_optional_number_needs_a_test(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(
        root,
        "rules.yaml",
        "      if c.bonus != none:\n          n = n + c.bonus",
        "      n = n + c.bonus",
    )
    errors = [d.message for d in compile_errors(root)]
    assert "c.bonus may be none here: counting with it fails when it is" in errors, errors


def test_an_attribute_not_declared_optional_is_still_required(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    _edit(root, "cards.yaml", "ember: {name: Ember, points: 1,", "ember: {name: Ember,")
    errors = [d.message for d in compile_errors(root)]
    assert "card 'ember' has no 'points'" in errors, errors
