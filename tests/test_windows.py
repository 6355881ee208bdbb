"""Interrupt windows (`windows:` in rules.yaml) on an invented game
(tests/fixtures/games/courtiers/): who is asked and in what order (reverse order of play),
the first act closing a reaction window, an "at any time" window open until every player
passes in succession, reopening inside an act bounded by `nesting`, saves in the middle of a
window, views while a window waits, bots and random games that end, both forms of the
engine, and the errors a designer sees."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from compile_helpers import fixture_errors
from fixtures.courtiers import SPECS
from forms_helpers import lockstep
from rulecraft.runtime import Game
from rulecraft.runtime.tools.agents import MonteCarloAgent, RandomAgent
from rulecraft.runtime.tools.ismcts import ISMCTSAgent
from test_all_scenarios import check_hidden_information

RED, GREEN, BLUE = 0, 1, 2
REACT = "React to {}'s play with a card, or pass"
MARKER = "Discard a marker card to remove another, or pass"


def asked(g: Game) -> tuple[str, str, list[str]]:
    """The seat asked now, the prompt and the option ids."""
    d = g.pending()[0]
    return g.spec.seats[d.player], d.prompt, [o.id for o in d.options]


def play(g: Game, *moves: str) -> list[tuple[str, str]]:
    """Answer the pending decisions with ``moves``; the (seat, prompt) of each asked."""
    seen = []
    for oid in moves:
        d = g.pending()[0]
        seen.append((g.spec.seats[d.player], d.prompt))
        g.apply(d.player, oid)
    return seen


def depth(g: Game, window: str) -> int:
    return int(g.state["g"][f"window__{window}__depth"])


# -- the order of asking, and what closes a window


def test_reactions_are_asked_in_reverse_order_of_play():
    """Red (first in the order red, green, blue) plays: blue is asked first, then green."""
    g = Game.new(SPECS["court"], None, 1)
    seen = play(g, "card:envoy", "none", "none")
    assert seen == [
        ("red", "Play a card"),
        ("blue", REACT.format("Red")),
        ("green", REACT.format("Red")),
    ]
    # both passed: the window closed, the next impulse is green's
    assert asked(g)[:2] == ("green", "Play a card")
    assert g.state["p"][RED]["vp"] == 2


def test_only_players_who_qualify_are_asked():
    """Green plays after blue has used its only reaction card: blue is not asked, red is."""
    g = Game.new(SPECS["court"], None, 1)
    play(g, "card:envoy", "card:rumour")
    seen = play(g, "card:bribe")
    assert asked(g) == ("red", REACT.format("Green"), ["card:intrigue", "none"])
    assert seen == [("green", "Play a card")]


def test_the_first_reaction_closes_a_reaction_window():
    g = Game.new(SPECS["court"], None, 1)
    play(g, "card:envoy")
    assert asked(g) == ("blue", REACT.format("Red"), ["card:rumour", "none"])
    g.apply(BLUE, "card:rumour")
    # green is not asked: one reaction per impulse
    assert asked(g)[:2] == ("green", "Play a card")
    assert [g.state["p"][s]["vp"] for s in (RED, GREEN, BLUE)] == [1, 0, 1]
    assert "Blue reacts with Rumour against Red" in g.log_for(None)


def test_an_any_time_window_stays_open_until_all_pass_in_succession():
    """Markers in play: after red's play every holder of a usable marker is asked, in the order
    of play; blue's discard opens the window again inside its act, and after it closes the
    outer window asks everyone who still qualifies again."""
    g = Game.new(SPECS["crowded"], None, 1)
    seen = play(g, "card:envoy", "none", "none", "card:pension", "card:favour")
    assert seen == [
        ("red", "Play a card"),
        ("red", MARKER),
        ("green", MARKER),
        ("blue", MARKER),
        ("blue", "Remove which marker card?"),
    ]
    assert "Blue discards Pension to remove Red's Favour" in g.log_for(None)
    assert depth(g, "markers") == 2
    seen = play(g, "none", "none", "none")
    assert seen == [("red", MARKER), ("green", MARKER), ("blue", MARKER)]
    # the inner window closed; the outer one goes on: all must pass in succession after an act
    assert depth(g, "markers") == 1
    seen = play(g, "none", "none", "none")
    assert seen == [("red", MARKER), ("green", MARKER), ("blue", MARKER)]
    assert depth(g, "markers") == 0
    assert asked(g)[:2] == ("green", "Play a card")


def test_all_passing_closes_the_window_at_once():
    g = Game.new(SPECS["crowded"], None, 1)
    play(g, "card:envoy", "none", "none", "none")
    assert asked(g)[:2] == ("green", "Play a card")
    assert depth(g, "markers") == 0


def test_reopening_inside_an_act_is_bounded_by_nesting():
    """nesting: 2. Red's discard opens the window inside its act (depth 2); green's discard in
    that inner window would open it a third time, which opens nothing: blue is asked by the
    inner window (depth 2), not by a third."""
    g = Game.new(SPECS["crowded"], None, 1)
    play(g, "card:envoy", "card:patent", "card:favour")
    assert depth(g, "markers") == 2
    # inside: red no longer qualifies; green is asked
    assert asked(g) == ("green", MARKER, ["card:title_deed", "card:charter", "none"])
    play(g, "card:title_deed", "card:charter")
    assert asked(g) == ("blue", MARKER, ["card:pension", "card:seal", "none"])
    assert depth(g, "markers") == 2  # the third opening opened nothing
    play(g, "none")
    # the inner window closes (nobody else qualifies); the outer one asks blue again
    assert asked(g)[:2] == ("blue", MARKER) and depth(g, "markers") == 1
    play(g, "none")
    assert asked(g)[:2] == ("green", "Play a card")
    assert depth(g, "markers") == 0
    log = g.log_for(None)
    assert "Red discards Patent to remove Red's Favour" in log
    assert "Green discards Title deed to remove Green's Charter" in log


def test_a_window_opens_before_a_flow_step():
    """The markers window opens before scoring too (opens: before: turn.score)."""
    g = Game.new(SPECS["crowded"], None, 1)
    play(g, "card:envoy", "none", "none", "none")
    # green and blue play nothing: no play, no window after it
    seen = play(g, "none", "none")
    assert seen == [("green", "Play a card"), ("blue", "Play a card")]
    # before the score: the window asks the holders again
    assert asked(g)[:2] == ("red", MARKER)
    play(g, "none", "none", "none")
    assert g.state["p"][RED]["vp"] == 2 + 2  # envoy, then a point per marker
    assert asked(g)[:2] == ("green", "Play a card")  # round 2: the order has turned


TOAST = "Raise a toast for 1 VP?"


def test_a_yes_or_no_window_asks_from_after_a_player_and_is_bounded_by_rounds():
    """The toast window (no item: yes or no, `may`), after the score, starting after the
    first in the order of play (green, once the order has turned) and closed after one round
    although red's toast used up nothing."""
    g = Game.new(SPECS["toasts"], None, 1)
    play(
        g, "card:envoy", "none", "none", "card:bribe", "none", "none", "card:feast", "none", "none"
    )
    assert g.state["g"]["order"] == [GREEN, BLUE, RED]
    seen = play(g, "no", "yes", "no")
    assert seen == [("blue", TOAST), ("red", TOAST), ("green", TOAST)]
    assert "Red raises a toast" in g.log_for(None)
    assert g.state["p"][RED]["vp"] == 1
    # one round only: blue is not asked again after red's toast
    assert asked(g)[:2] == ("green", "Play a card")


def test_a_window_whose_when_does_not_hold_opens_nothing():
    g = Game.new(SPECS["court"], None, 1)
    play(
        g, "card:envoy", "none", "none", "card:bribe", "none", "none", "card:feast", "none", "none"
    )
    assert asked(g)[:2] == ("green", "Play a card")
    assert "toast" not in " ".join(g.log_for(None))


# -- saves, views, bots, forms


def test_a_save_in_the_middle_of_a_nested_window_resumes_it():
    spec = SPECS["crowded"]
    g = Game.new(spec, None, 1)
    play(g, "card:envoy", "none", "none", "card:pension", "card:favour")
    assert depth(g, "markers") == 2
    text = g.to_json()
    h = Game.from_json(text, spec)
    assert json.loads(h.to_json()) == json.loads(text)
    assert asked(h) == asked(g)
    rng = random.Random(5)
    while not g.finished:
        d = g.pending()[0]
        oid = d.options[rng.randrange(len(d.options))].id
        g.apply(d.player, oid)
        h.apply(d.player, oid)
    assert h.finished and h.result == g.result
    assert h.state["log"] == g.state["log"]


def test_a_waiting_reaction_shows_its_options_to_the_player_asked_only():
    g = Game.new(SPECS["court"], None, 1)
    play(g, "card:envoy")
    assert asked(g)[0] == "blue"
    assert "rumour" in json.dumps(g.view(BLUE))
    for seat in (RED, GREEN, None):
        assert "rumour" not in json.dumps(g.view(seat)), seat


@pytest.mark.parametrize("scenario", ["court", "crowded", "toasts"])
def test_views_hide_what_a_seat_may_not_see_along_random_games(scenario):
    spec = SPECS[scenario]
    for seed in range(8):
        g = Game.new(spec, None, seed)
        rng = random.Random(seed)
        while not g.finished:
            check_hidden_information(g, rng)
            d = g.pending()[0]
            g.apply(d.player, d.options[rng.randrange(len(d.options))].id)


@pytest.mark.parametrize("scenario", ["court", "crowded", "toasts"])
def test_random_games_end(scenario):
    spec = SPECS[scenario]
    acted = 0
    for seed in range(200):
        agents = [RandomAgent(seed * 3 + s) for s in range(3)]
        g = Game.new(spec, None, seed)
        n = 0
        while not g.finished:
            d = g.pending()[0]
            oid = agents[d.player].choose(None, d, spec)
            acted += d.prompt == MARKER and oid != "none"
            g.apply(d.player, oid)
            n += 1
            assert n < 200
        assert g.result is not None
    if scenario == "crowded":
        assert acted > 0  # random bots act in windows, not only pass


def test_monte_carlo_bots_act_or_pass_in_windows():
    spec = SPECS["crowded"]
    agents = [MonteCarloAgent(s, playouts=4) for s in range(3)]
    g = Game.new(spec, None, 3)
    answers = []
    while not g.finished:
        d = g.pending()[0]
        oid = agents[d.player].choose(g.view_state(d.player), d, spec)
        if d.prompt == MARKER:
            answers.append(oid)
        g.apply(d.player, oid)
    assert g.result is not None and answers


def test_ismcts_bots_play_games_with_windows():
    spec = SPECS["crowded"]
    for seed in range(2):
        bots = [ISMCTSAgent(seed * 3 + s, iterations=20) for s in range(3)]
        g = Game.new(spec, None, seed)
        answers = []
        while not g.finished:
            d = g.pending()[0]
            oid = bots[d.player].choose(g.view_state(d.player), d, spec)
            if d.prompt in (MARKER, REACT.format(spec.seat_labels[0])):
                answers.append(oid)
            g.apply(d.player, oid)
        assert g.result is not None and answers


@pytest.mark.parametrize("scenario", ["court", "crowded", "toasts"])
def test_both_forms_play_the_same_games(scenario):
    for seed in range(6):
        rec = lockstep(SPECS[scenario], seed)
        assert rec.decisions and not rec.machine.error


# -- errors a designer sees

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "games" / "courtiers"


def _errors(tmp_path: Path, old: str, new: str):  # type: ignore[no-untyped-def]
    return fixture_errors(tmp_path, FIXTURE, old, new)


def test_an_unknown_opening_is_an_error_with_a_suggestion(tmp_path):
    errors, lines = _errors(
        tmp_path, "- after: play_action\n  markers:", "- after: play_actoin\n  markers:"
    )
    e = errors[0]
    assert (e.code, e.pos.file) == ("undefined", "rules/courtiers/rules.yaml")
    assert "play_actoin" in lines[e.pos.line - 1]
    assert "neither a procedure nor a flow step" in e.message and "play_action" in (e.hint or "")


def test_a_window_with_params_cannot_open_at_a_flow_step(tmp_path):
    errors, lines = _errors(
        tmp_path, "    - after: play_action\n  markers:", "    - before: turn.score\n  markers:"
    )
    e = errors[0]
    assert e.code == "undefined" and "takes params (actor)" in e.message
    assert "turn.score" in lines[e.pos.line - 1]


def test_a_param_named_like_the_window_s_own_names_is_an_error(tmp_path):
    errors, lines = _errors(tmp_path, "params: {actor: player}", "params: {p: player}")
    e = errors[0]
    assert e.code == "duplicate-name" and "'p'" in e.message
    assert lines[e.pos.line - 1].strip().startswith("params:")


def test_a_window_named_like_a_routine_is_an_error(tmp_path):
    errors, lines = _errors(tmp_path, "  markers:\n    title", "  holder:\n    title")
    assert any(e.code == "duplicate-name" and "window 'holder'" in e.message for e in errors)


def test_options_without_an_item_type_are_an_error(tmp_path):
    errors, _ = _errors(tmp_path, '    item: card\n    options: "[c for', '    options: "[c for')
    assert any("has options but no item type" in e.message for e in errors)
