"""Runtime: agents, simulation, terminal play and the play/simulate commands."""

from __future__ import annotations

import io
import json
import random

import pytest
from fixtures.toy import CARD_NAME, SPEC
from rulecraft.compiler.cli import COMMANDS, main
from rulecraft.runtime import Game, GameError, make_agent, simulate
from rulecraft.runtime.tools.agents import MonteCarloAgent, RandomAgent
from rulecraft.runtime.tools.simulate import wilson
from rulecraft.runtime.tools.terminal import play


def test_agents_see_only_the_view_and_choose_legal_options():
    g = Game.new(SPEC, "duel", 3)
    for agent in (RandomAgent(1), MonteCarloAgent(1, playouts=4)):
        for d in g.pending():
            assert "rng" not in g.view(d.player)
            V = g.view_state(d.player)
            assert agent.choose(V, d, SPEC) in {o.id for o in d.options}


def test_random_agent_does_not_touch_the_game_generator():
    g = Game.new(SPEC, "duel", 3)
    before = g.state["rng"]
    RandomAgent(5).choose(g.view_state(0), g.pending()[0], SPEC)
    MonteCarloAgent(5, playouts=2).choose(g.view_state(0), g.pending()[0], SPEC)
    assert g.state["rng"] == before and g.state["draws"] == 2  # the two set-up deals


def test_monte_carlo_beats_random():
    r = simulate(SPEC, "duel", 60, 11, ["mc:8", "random"])
    assert r.wins["red"] > 2 * r.wins["blue"]


def test_make_agent_names():
    assert isinstance(make_agent("random", 1), RandomAgent)
    assert make_agent("mc:7", 1).playouts == 7
    with pytest.raises(GameError, match="unknown agent 'genius'"):
        make_agent("genius", 1)


def test_simulate_is_independent_of_jobs_and_reproducible():
    one = simulate(SPEC, "duel", 120, 42, ["random", "random"], jobs=1)
    two = simulate(SPEC, "duel", 120, 42, ["random", "random"], jobs=2)
    assert one.outcomes == two.outcomes
    assert (one.wins, one.ties, one.turns, one.decisions) == (
        two.wins,
        two.ties,
        two.turns,
        two.decisions,
    )
    other = simulate(SPEC, "duel", 120, 43, ["random", "random"])
    assert other.outcomes != one.outcomes


def test_simulate_json_and_report():
    r = simulate(SPEC, "duel", 50, 1, ["random"])
    data = json.loads(r.to_json())
    for key in (
        "games",
        "wins",
        "ties",
        "mean_turns",
        "mean_decisions",
        "games_per_second",
        "win_ci95",
        "tie_ci95",
    ):
        assert key in data
    assert data["games"] == 50 and set(data["wins"]) == {"red", "blue"}
    assert sum(data["wins"].values()) + data["ties"] == 50
    assert data["mean_turns"] == 4.0 and data["mean_decisions"] > 8
    text = r.report()
    assert "red" in text and "95% CI" in text and "games/s" in text


def test_simulate_progress_lines_when_not_a_terminal():
    err = io.StringIO()
    simulate(SPEC, "duel", 40, 1, ["random"], progress=err)
    lines = err.getvalue().splitlines()
    assert 3 <= len(lines) <= 11 and lines[-1].startswith("toy/duel: 40/40 games, ")
    assert "/40 games, " in lines[0] and " left" in lines[0]  # elapsed time and what is left
    assert " left" not in lines[-1]


def test_simulate_refuses_bad_agents():
    with pytest.raises(GameError, match="3 agents for 2 seats"):
        simulate(SPEC, "duel", 5, 1, ["random"] * 3)


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(0, 0) == (0.0, 1.0)


def _play(script: str, seats=("human", "random"), seed=3):
    out = io.StringIO()
    result = play(SPEC, "duel", list(seats), seed, input=io.StringIO(script), output=out)
    return result, out.getvalue()


def test_terminal_game_to_the_end():
    result, text = _play("1\n" * 40)
    assert result is not None and "Game over:" in text
    assert "Red (you):" in text and "Pick a card to play in secret" in text
    assert "1. Card" in text and "[card:c" in text  # labels from spec.labels, ids shown
    assert "2 hidden cards" in text


def test_terminal_never_shows_the_bots_secrets():
    _, text = _play("1\n" * 40)
    g = Game.new(SPEC, "duel", 3)
    blue_private = [t for t, a in g.state["log"] if a == [1]]
    assert "You commit" in text
    for line in text.splitlines():
        assert "(you)" not in line or line.startswith("Red")
    assert not any(t in text for t in blue_private)
    # blue's opening hand is never listed as such
    assert (
        "hand: " + ", ".join(CARD_NAME[c] for c in g.state["p"][1]["hand"])
        not in text.split("Blue:")[1].split("marker:")[0]
    )


def test_terminal_accepts_ids_help_and_refuses_unknown_input():
    g = Game.new(SPEC, "duel", 3)
    first = g.legal(0)[1].id
    result, text = _play(f"help\nbanana\n{first}\n\nquit\n")  # Enter: the secret pick stands
    assert result is None and "Game abandoned." in text
    assert "undo   take back" in text and "No option 'banana'" in text
    assert f"You commit {first.split(':')[1]}." in text


def test_terminal_undo_and_its_barrier():
    # a secret pick can be taken back before the bot picks and all is revealed
    _, text = _play("1\nundo\n2\n\nyes\nundo\nquit\n")
    assert "Red, your secret pick: Card 1 (Pick a card to play in secret). It stays secret" in text
    assert "Your pick is taken back." in text
    assert text.count("You commit") == 1 and "You commit c2." in text
    assert "Cannot undo: dice were rolled since your last decision." in text
    _, text = _play("undo\nquit\n")
    assert "Nothing to undo." in text


def test_terminal_two_humans_each_see_their_own_view():
    _, text = _play("1\n1\nquit\n", seats=("human", "human"))
    assert "--- Blue to decide; other players look away ---" in text
    assert "Blue (you):" in text and "Red (you):" in text


def test_cli_simulate_json(capsys):
    assert main(["simulate", "toy", "--games", "20", "--seed", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 20 and data["agents"] == {"red": "random", "blue": "random"}
    assert (
        main(["simulate", "toy/duel", "--games", "10", "--agents", "random,random", "--jobs", "2"])
        == 0
    )
    assert "toy/duel: 10 games" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["simulate", "nope", "--games", "3"], "no compiled game named 'nope'"),
        (["simulate", "toy/nope", "--games", "3"], "has no scenario 'nope'"),
        (["simulate", "toy", "--games", "0"], "expected a positive integer"),
        (["simulate", "toy", "--games", "3", "--agents", "x"], "unknown agent 'x'"),
        (["play", "toy", "--seats", "human,robot"], "unknown seat kind 'robot'"),
        # bot budgets are bounded; empty lists are errors, not "everything"
        (["play", "toy", "--seats", "mc:99999999999999999999"], "PLAYOUTS from 1 to 10,000"),
        (["simulate", "toy", "--games", "3", "--agents", "mc:0"], "PLAYOUTS from 1 to 10,000"),
        (["simulate", "toy", "--games", "3", "--agents", "mc:²"], "bad agent 'mc:²'"),
        (["simulate", "toy", "--games", "3", "--agents", ""], "expected names separated"),
        (["simulate", "--all", "toy", "--games", "3", "--scenarios", ","], "expected names"),
        (["play", "toy", "--seats", ","], "expected names separated by commas"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_cli_errors_are_one_line(capsys, argv, message):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("rulecraft: error: ") and message in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_play_scripted(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # a game the input leaves unfinished is saved here
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 40))
    assert main(["play", "toy", "--seats", "human,mc:2", "--seed", "9"]) == 0
    assert "Game over:" in capsys.readouterr().out


def test_cli_registry_is_open():
    assert {"play", "simulate"} <= set(COMMANDS)
    assert all(len(c) == 4 for c in COMMANDS.values())


def test_random_playout_speed_smoke():
    g = Game.new(SPEC, "duel", 1)
    r = random.Random(1)
    for _ in range(200):
        c = g.clone()
        while not c.finished:
            d = c.pending()[0]
            c.apply(d.player, d.options[r.randrange(len(d.options))].id)


def test_terminal_accepts_a_label_or_the_unique_start_of_one():
    g = Game.new(SPEC, "duel", 3)
    second = g.legal(0)[1]
    result, text = _play(f"card\n{second.label.upper()}\nquit\n")
    # the start of every label: not unique, and the matches are listed
    assert "'card' could be Card 1 [card:c1]; Card 2 [card:c2]; Card 3 [card:c3]" in text
    assert f"You commit {second.id.split(':')[1]}." in text
    result, text = _play(f"{second.id.split(':')[1]}\nquit\n")  # the id without its kind
    assert f"You commit {second.id.split(':')[1]}." in text


def test_the_board_uses_titles_hides_bookkeeping_and_fits_80_columns():
    from rulecraft.runtime.registry import known_games
    from rulecraft.runtime.tools.balance import scenarios_of
    from rulecraft.runtime.tools.terminal import render_view

    for game in [g for g in known_games() if "/" not in g]:
        for spec, sid in scenarios_of(game):
            g = Game.new(spec, sid, 1)
            text = render_view(g.view(0), g.spec)
            wide = [line for line in text.splitlines()[1:] if len(line) > 80]
            assert not wide, (game, sid, wide[:2])
    g = Game.named("march_of_progress/ww2_in_the_west", 1)
    text = render_view(g.view(0), g.spec, g.displays(0))
    assert "VPs to win: 15" in text  # a constant put on the board
    # names spelled as the game spells its words (`words: {vp: VP}`), or their titles
    assert "VP stock: " in text and "VP die" in text and "    VPs: " in text
    assert "vp" not in text.replace("VP", "")
    g = Game.named("westphalia/congress", 1)
    text = render_view(g.view(0), g.spec)
    assert "Tolerance Track: 3" in text and "Debts: 12" in text  # titles, not field names
    assert "turn_over" not in text and "The acting Army's turn has ended" not in text
    assert "Final score" not in text and "action:" not in text  # internal: not shown


def test_terminal_shows_card_texts_and_why_a_card_is_not_offered():
    """Rules: MOP-SCORE-01"""
    from rulecraft.runtime.registry import resolve

    spec, sc = resolve("march_of_progress/thirty_years_war")
    out = io.StringIO()
    script = "cards\nhelp attack+1\nscore\nquit\n"
    play(spec, sc, ["human", "random"], 3, input=io.StringIO(script), output=out)
    text = out.getvalue()
    assert "MOVE 1: Move 1 of your armies from the country card it occupies" in text
    assert text.count("ATTACK+1: As for ATTACK") == 2  # in `cards` and in `help attack+1`
    assert (
        "SCORE is not offered now: you cannot play your SCORE card until your discard pile "
        "has at least 1 card in it." in text
    )


def test_play_refuses_garbage_input_with_a_message():
    # "²".isdigit() is true and int("²") fails; over 4,300 digits int() fails too
    script = "²\n①\n" + "9" * 5000 + "\n0\n-1\n\udcff\nquit\n"
    out = io.StringIO()
    assert play(SPEC, "duel", ["human", "random"], 1, input=io.StringIO(script), output=out) is None
    text = out.getvalue()
    assert text.count("No option ") == 6 and "Game abandoned." in text
    assert "9" * 41 not in text  # a long input is shortened when it is quoted back


def test_play_on_a_closed_input_says_so():
    closed = io.StringIO()
    closed.close()
    with pytest.raises(GameError, match="standard input is closed"):
        play(SPEC, "duel", ["human", "random"], 1, input=closed, output=io.StringIO())
