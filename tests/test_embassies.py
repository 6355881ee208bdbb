"""Negotiation inside the steps of a turn and promises about one of a list, on an invented game
(tests/fixtures/games/embassies/): a negotiation window (`negotiate: true` under `windows:`)
opened before flow steps while a choice holds, so that a deal made before a step changes what
the step does; promise goods with `item` and `from` (`promised("g", a, b, x)`), one that
filters the promiser's options, one that makes the rules act for them, both lapsing at the end
of their phase; saves, views, bots, both forms of the engine, and the errors a designer sees."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from compile_helpers import fixture_errors
from fixtures.embassies import SPECS
from forms_helpers import lockstep
from rulecraft.runtime import Game, IllegalDecision
from rulecraft.runtime.tools.agents import RandomAgent, TraderAgent
from test_all_scenarios import check_hidden_information

RED, GREEN, BLUE = 0, 1, 2


def seat(g: Game) -> str:
    return g.spec.seats[g.pending()[0].player]


def pass_talks(g: Game) -> list[str]:
    """Every seat passes until a decision other than an offer comes; the seats asked."""
    seen = []
    while g.pending()[0].kind == "propose":
        seen.append(seat(g))
        g.apply(g.pending()[0].player, "pass")
    return seen


def order(g: Game) -> list[str]:
    return [g.spec.seats[q] for q in g.state["g"]["order"]] if "g" in g.state else []


def first_round_order(g: Game) -> list[str]:
    line = next(ln for ln in g.log_for(None) if ln.startswith("Round 1: "))
    labels = {g.spec.seat_labels[i]: s for i, s in enumerate(g.spec.seats)}
    return [labels[x] for x in line[len("Round 1: ") :].split(", ")]


# -- a negotiation window before a step


def test_the_window_before_a_step_asks_every_seat_in_the_order_of_play():
    g = Game.new(SPECS["summit"], None, 1)
    turn = first_round_order(g)
    assert pass_talks(g) == turn * 2  # the talks pass round, then the parley before the raid


def test_peace_made_just_before_the_raid_stops_that_raid():
    g = Game.new(SPECS["summit"], None, 1)
    turn = first_round_order(g)
    for _ in turn:  # the talks: all pass
        g.apply(g.pending()[0].player, "pass")
    gold = [p["gold"] for p in g.state["p"]]
    a, b = turn[0], turn[1]
    assert seat(g) == a  # the parley before the raid
    g.apply(g.pending()[0].player, f"offer:peace:{a}>{b}")
    g.apply(g.pending()[0].player, "yes")
    pass_talks(g)
    assert "Peace: nobody raids" in g.log_for(None)
    assert [p["gold"] for p in g.state["p"]] == gold


def test_without_the_choice_the_steps_open_no_window():
    g = Game.new(SPECS["old_talks"], None, 1)
    turn = first_round_order(g)
    assert pass_talks(g) == turn  # the talks only; then the raid happens at once
    assert g.pending()[0].prompt == "Move to"
    assert any("loses a gold in the raid" in ln for ln in g.log_for(None))


# -- promises about one of a list


def test_a_promise_to_keep_out_of_a_province_removes_it_from_the_promiser_s_moves():
    g = Game.new(SPECS["summit"], None, 2)
    turn = first_round_order(g)
    a, b = turn[0], turn[1]
    g.apply(g.pending()[0].player, f"offer:keep_out:{a}>{b}=south")
    g.apply(g.pending()[0].player, "yes")
    i = g.spec.seats.index(a)
    assert g.state["p"][i]["promised_keep_out"] == [g.spec.seats.index(b)]
    pass_talks(g)
    while seat(g) != a:
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    options = [o.id for o in g.pending()[0].options]
    assert "province:south" not in options and options
    # the promise lapses when the move step ends
    while g.pending()[0].prompt == "Move to":
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    assert g.state["p"][i]["promised_keep_out"] == []
    assert g.state["p"][i]["promised_keep_out_about"] == []


def test_a_promised_vote_is_cast_by_the_rules_and_no_one_is_asked():
    g = Game.new(SPECS["summit"], None, 3)
    turn = first_round_order(g)
    a, b = turn[0], turn[1]
    g.apply(g.pending()[0].player, f"offer:vote:{a}>{b}={b}")
    g.apply(g.pending()[0].player, "yes")
    asked = []
    while not (g.log_for(None) and "votes for" in g.log_for(None)[-1] and len(asked) > 3):
        d = g.pending()[0]
        if d.prompt == "Vote for":
            asked.append(g.spec.seats[d.player])
        g.apply(d.player, "pass" if d.kind == "propose" else d.options[0].id)
        if sum("votes for" in ln for ln in g.log_for(None)) == 3:
            break
    assert a not in asked and len(asked) == 2
    label = g.spec.seat_labels
    voter, votee = label[g.spec.seats.index(a)], label[g.spec.seats.index(b)]
    assert f"{voter} votes for {votee}, as promised" in g.log_for(None)
    assert g.state["p"][g.spec.seats.index(a)]["promised_vote"] == []  # lapsed after the vote


def test_a_promise_about_something_outside_its_list_is_refused():
    g = Game.new(SPECS["summit"], None, 3)
    turn = first_round_order(g)
    a, b = turn[0], turn[1]
    with pytest.raises(IllegalDecision, match="cannot give Vote for"):
        g.apply(g.pending()[0].player, f"offer:vote:{a}>{b}={a}")  # a vote for oneself
    assert seat(g) == a and g.pending()[0].kind == "propose"


# -- saves, views, bots, forms


def test_a_save_inside_a_window_before_a_step_resumes_it():
    spec = SPECS["summit"]
    g = Game.new(spec, None, 4)
    for _ in range(4):  # the talks, and one seat into the parley
        g.apply(g.pending()[0].player, "pass")
    h = Game.from_json(g.to_json(), spec)
    rng = random.Random(2)
    while not g.finished:
        d = g.pending()[0]
        oid = d.options[rng.randrange(len(d.options))].id
        g.apply(d.player, oid)
        h.apply(d.player, oid)
    assert h.result == g.result and h.state["log"] == g.state["log"]


# -- a deal that ends the game


def surrender_offer(g: Game) -> tuple[int, int, str]:
    """The seat asked to propose, the next seat, and the offer of the first's surrender."""
    p = g.pending()[0].player
    q = (p + 1) % 3
    return p, q, f"offer:surrender:{g.spec.seats[p]}>{g.spec.seats[q]}"


def test_a_deal_whose_good_ends_the_game_may_be_offered_and_ends_it_when_accepted():
    g = Game.new(SPECS["surrender"], None, 1)
    p, q, offer = surrender_offer(g)
    g.apply(p, offer)  # checked on a copy, where the game ends: no error
    assert not g.finished
    g.apply(q, "yes")
    assert g.finished and g.result["winners"] == [q]
    label = g.spec.seat_labels
    assert g.result["reason"] == f"{label[p]} surrenders to {label[q]}"


def test_without_the_choice_the_surrender_is_refused():
    g = Game.new(SPECS["summit"], None, 1)
    p, _q, offer = surrender_offer(g)
    with pytest.raises(IllegalDecision, match="cannot give Surrender"):
        g.apply(p, offer)


def test_a_trader_judges_a_deal_that_would_end_the_game():
    spec = SPECS["surrender"]
    g = Game.new(spec, None, 1)
    p, q, offer = surrender_offer(g)
    g.apply(p, offer)
    # it carries the deal out on a copy: the game ends there, and its own value stays
    assert TraderAgent(1).choose(g.view_state(q), g.pending()[0], spec) == "yes"


@pytest.mark.parametrize("scenario", ["summit", "old_talks"])
def test_random_games_end_with_promises_made(scenario):
    spec = SPECS[scenario]
    promised = 0
    for seed in range(60):
        agents = [RandomAgent(seed * 3 + s) for s in range(3)]
        g = Game.new(spec, None, seed)
        n = 0
        while not g.finished:
            d = g.pending()[0]
            g.apply(d.player, agents[d.player].choose(None, d, spec))
            promised += sum(len(p["promised_keep_out"]) for p in g.state["p"])
            n += 1
            assert n < 400
        assert g.result is not None
        check_hidden_information(g, random.Random(seed))
    assert promised > 0


@pytest.mark.parametrize("scenario", ["summit", "old_talks"])
def test_both_forms_play_the_same_games(scenario):
    for seed in range(6):
        rec = lockstep(SPECS[scenario], seed)
        assert rec.decisions and not rec.machine.error


# -- errors a designer sees

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "games" / "embassies"


def _errors(tmp_path: Path, old: str, new: str, file: str = "rules.yaml"):  # type: ignore[no-untyped-def]
    return fixture_errors(tmp_path, FIXTURE, old, new, file)


def test_a_negotiation_window_without_rounds_is_an_error(tmp_path):
    errors, lines = _errors(tmp_path, "    rounds: step_rounds\n", "")
    e = errors[0]
    assert e.pos.file == "rules/embassies/rules.yaml"
    assert "rounds" in e.message


def test_a_window_that_neither_negotiates_nor_acts_says_which_keys_it_needs(tmp_path):
    errors, lines = _errors(tmp_path, "    negotiate: true\n", "")
    e = errors[0]
    assert e.code == "schema"
    assert "needs 'negotiate' and 'rounds', or 'prompt' and 'act'" in e.message
    assert lines[e.pos.line - 1].strip().startswith("title: Parley")


def test_a_negotiation_window_with_an_act_is_an_error(tmp_path):
    errors, lines = _errors(
        tmp_path,
        "    rounds: step_rounds\n",
        "    rounds: step_rounds\n    act: |\n      peace = true\n",
    )
    e = errors[0]
    assert "is a negotiation and cannot have 'act'" in e.message
    assert lines[e.pos.line - 1].strip().startswith("act:")


def test_promised_about_something_of_a_whole_promise_is_an_error(tmp_path):
    errors, lines = _errors(tmp_path, 'promised("keep_out", p, q, a)', 'promised("peace", p, q, a)')
    assert any("promise" in e.message for e in errors)


def test_promised_about_something_of_the_wrong_type_is_an_error(tmp_path):
    errors, lines = _errors(
        tmp_path, 'promised("keep_out", p, q, a)', 'promised("keep_out", p, q, q)'
    )
    e = errors[0]
    assert e.code == "type" and "what promise 'keep_out' is about must be" in e.message
    assert 'promised("keep_out", p, q, q)' in lines[e.pos.line - 1]


def test_a_promise_with_an_amount_is_an_error(tmp_path):
    errors, lines = _errors(
        tmp_path,
        "      title: Keep out of\n",
        "      title: Keep out of\n      amount: giver.gold\n",
    )
    assert any("cannot also have an amount" in e.message for e in errors)


def test_a_good_whose_give_asks_a_decision_is_an_error(tmp_path):
    """A deal is carried out the moment both sides agree, inside the window: its effect cannot
    wait for a player (an engine built from it failed when it started)."""
    errors, lines = _errors(
        tmp_path,
        "        peace = true\n",
        '        peace = true\n        let w = choose_yes_no(giver, "Really?")\n',
    )
    e = errors[0]
    assert e.code == "decision" and "may not ask a player" in e.message, e.render()
    assert "choose_yes_no" in lines[e.pos.line - 1]
    assert "a flow step" in (e.hint or "")
