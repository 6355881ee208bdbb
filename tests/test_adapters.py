"""The research adapters pass their libraries' own API tests (issue 11).

PettingZoo: ``pettingzoo.test.api_test`` and ``seed_test``; OpenSpiel: ``pyspiel.random_sim_test``
(clone, legal actions sorted and masked, unique action strings, observation and
information-state strings and tensors for every player at every node, returns in range) on
the game and on its turn-based conversion. Every March of Progress scenario runs in the
default suite; the other compiled games (Third Reich, Westphalia, and those to come), long
games in Python, run with ``-m soak``. The suite passes without the extras: each test skips
when its library is not installed.
"""

from __future__ import annotations

import random
import warnings
from importlib import import_module
from importlib.util import find_spec

import pytest
from rulecraft.generated import march_of_progress
from rulecraft.runtime import Game, known_games

np = pytest.importorskip("numpy")

from rulecraft.runtime.adapters.encoding import (  # noqa: E402
    ActionMap,
    ObservationEncoder,
    returns_of,
    spread,
)

MOP = [f"march_of_progress/{s}" for s in march_of_progress.SCENARIOS]
#: every scenario of the other compiled games (Third Reich, Westphalia, and games to come)
OTHERS = [
    f"{game}/{s}"
    for game in sorted({name.partition("/")[0] for name in known_games()})
    # the bundled games only: a test game registered by an earlier test module is not one
    if game != "march_of_progress" and find_spec(f"rulecraft.generated.{game}") is not None
    for s in import_module(f"rulecraft.generated.{game}").SCENARIOS
]
#: the first scenario of each of those games: pyspiel's random simulation checks the adapter
#: (every node's API), not the rules, and takes a minute or more per Marlborough scenario, so
#: the soak bounds it by game, not by scenario (the per-scenario tests above cover them all)
FIRST_OF_OTHERS = [
    next(name for name in OTHERS if name.partition("/")[0] == game)
    for game in sorted({name.partition("/")[0] for name in OTHERS})
]
#: the numbered slots of the other games' tests: a report or an offer is declined with
#: probability 1/(K+1) by uniform play, so a small K keeps random games short
SMALL_K = 8


def _pettingzoo():
    pytest.importorskip("pettingzoo")
    from rulecraft.runtime.adapters import pettingzoo as adapter

    return adapter


def _openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    from rulecraft.runtime.adapters import openspiel as adapter

    return pyspiel, adapter


# -- the shared action space and observation -------------------------------------------


@pytest.mark.parametrize("name", MOP + OTHERS)
def test_actions_choose_exactly_the_options_of_the_decision(name):
    """Every legal action names an option of the pending decision, each option of a
    listable decision has its action, and a numbered decision exposes at most K options
    (the first and the last among them)."""
    g = Game.named(name, 5)
    actions = ActionMap(g.spec, SMALL_K)
    rng = random.Random(5)
    for _ in range(150):
        if g.finished:
            break
        by_player = {legal.player: legal for legal in actions.legal(g)}
        assert sorted(by_player) == sorted(d.player for d in g.pending())
        for d in g.pending():
            legal = by_player[d.player]
            assert list(legal.actions) == sorted(set(legal.actions))
            mask = actions.mask(legal)
            assert mask.sum() == len(legal.actions) and mask.shape == (actions.size,)
            n = len(d.options)
            if len(legal.actions) == n:  # every option exposed
                assert sorted(legal.index) == list(range(n))
            else:
                assert len(legal.actions) <= SMALL_K + 1
                assert 0 in legal.index and n - 1 in legal.index
            for a, i in zip(legal.actions, legal.index, strict=True):
                if a < actions.base:
                    assert actions.names[a] == d.options[i].id
        legal = by_player[g.pending()[0].player]
        a = rng.choice(legal.actions)
        g.apply_index(legal.player, legal.option_index(a))


def test_spread_keeps_both_ends():
    assert spread(3, 8) == [0, 1, 2]
    assert spread(100, 5) == [0, 25, 50, 74, 99]
    assert spread(10, 1) == [0]


@pytest.mark.parametrize("name", MOP + OTHERS)
def test_observation_stays_in_its_bounds(name):
    g = Game.named(name, 2)
    enc = ObservationEncoder(g.spec)
    out = np.zeros(enc.size, np.float64)
    rng = random.Random(2)
    for _ in range(60):
        if g.finished:
            break
        for p in [None, *range(len(g.spec.seats))]:
            enc.encode(g, p, out)
            assert (out >= enc.low).all() and (out <= enc.high).all()
        d = g.pending()[0]
        g.apply_index(d.player, rng.randrange(len(d.options)))


def test_returns_win_loss_tie_and_shared_victory():
    g = Game.named("march_of_progress/politics_by_other_means", 1)
    S = g.raw
    from rulecraft.runtime.layout import RESULT

    S[RESULT] = ((0,), False, "win")
    assert returns_of(g) == [1.0, -1.0, -1.0]
    S[RESULT] = ((0, 2), False, "shared")
    assert returns_of(g) == [1.0, -1.0, 1.0]
    S[RESULT] = ((0, 1), True, "tie of two")
    assert returns_of(g) == [0.0, 0.0, -1.0]
    S[RESULT] = ((), True, "draw")
    assert returns_of(g) == [0.0, 0.0, 0.0]
    assert returns_of(g, truncated=True) == [0.0, 0.0, 0.0]


# -- PettingZoo ---------------------------------------------------------------------------


def _api_test(name, **kwargs):
    adapter = _pettingzoo()
    from pettingzoo.test import api_test, seed_test

    with warnings.catch_warnings():
        # advice, not failures: agents are named by seat (not player_0); the observation is
        # a dict with an action mask, as in PettingZoo's own board games
        warnings.simplefilter("ignore")
        api_test(adapter.RulecraftEnv(name, **kwargs), num_cycles=1000)
        seed_test(lambda: adapter.env(name, **kwargs), num_cycles=100)


@pytest.mark.parametrize("name", MOP)
def test_pettingzoo_api_test_march_of_progress(name):
    _api_test(name)


@pytest.mark.soak
@pytest.mark.parametrize("name", OTHERS)
def test_pettingzoo_api_test_other_games(name):
    _api_test(name, max_options=SMALL_K)


@pytest.mark.parametrize("name", MOP)
def test_pettingzoo_random_games_end_with_rewards(name):
    env = _pettingzoo().RulecraftEnv(name)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        mask = obs["action_mask"]
        assert mask.any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert env.game.finished
    assert env.agents == []


def test_pettingzoo_a_game_cut_short_is_truncated_with_no_reward():
    env = _pettingzoo().RulecraftEnv("march_of_progress/war_to_end_war", max_moves=5)
    env.reset(seed=1)
    for _ in range(5):
        obs = env.observe(env.agent_selection)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env.rewards.values()) == {0.0}
    while env.agents:
        env.step(None)


def test_pettingzoo_a_secret_pick_stays_secret_until_all_picked():
    """Thirty Years War starts with both players picking a card face down: after blue
    picks, orange sees the same whichever card blue picked, and blue's pick is not applied
    until orange has picked too."""
    env = _pettingzoo().RulecraftEnv("march_of_progress/thirty_years_war")
    seen = []
    for pick in range(2):
        env.reset(seed=7)
        assert env.agent_selection == "blue"
        assert len(env.game.pending()) == 2
        mask = env.observe("blue")["action_mask"]
        env.step(int(np.flatnonzero(mask)[pick]))
        assert env.agent_selection == "orange"
        assert not env.observe("blue")["action_mask"].any()
        seen.append(env.observe("orange")["observation"])
    assert (seen[0] == seen[1]).all()


# -- OpenSpiel ----------------------------------------------------------------------------


def _random_sim(name, sims, **params):
    pyspiel, adapter = _openspiel()
    game = adapter.load_game(name, **params)
    # pyspiel cannot serialize a Python game of sampled chance (GetRNGState is C++ only):
    # serialize=False; the state's own round trip is tested below
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)
    return game


@pytest.mark.parametrize("name", MOP)
def test_openspiel_random_sim_test_march_of_progress(name):
    # 300 moves: most random games end before, the others are cut short (returns 0)
    _random_sim(name, 2, max_moves=300)


def test_openspiel_random_sim_test_to_the_end_and_turn_based():
    pyspiel, adapter = _openspiel()
    game = _random_sim("march_of_progress/thirty_years_war", 2)
    turn_based = pyspiel.convert_to_turn_based(game)
    pyspiel.random_sim_test(turn_based, num_sims=1, serialize=False, verbose=False)


@pytest.mark.soak
@pytest.mark.parametrize("name", FIRST_OF_OTHERS)
def test_openspiel_random_sim_test_other_games(name):
    # cut at 200 moves: pyspiel checks every node, and a whole random campaign_1939 took 3
    # minutes (600 moves: 38 s)
    _random_sim(name, 1, max_options=SMALL_K, max_moves=200)


def test_openspiel_game_type_and_nodes():
    pyspiel, adapter = _openspiel()
    game = pyspiel.load_game("rulecraft(game=march_of_progress/politics_by_other_means)")
    t = game.get_type()
    assert t.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert t.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert game.num_players() == 3 and game.max_chance_outcomes() == 0
    state = game.new_initial_state()
    assert state.is_simultaneous_node()  # every player picks a card face down
    ids = {state.action_to_string(0, a) for a in state.legal_actions(0)}
    assert {o.id for o in state.match.game.legal(0)} == ids
    while state.is_simultaneous_node():
        state.apply_actions([state.legal_actions(p)[0] for p in range(3)])
    assert state.current_player() >= 0
    # a clone rolls the same dice; the state's own serialization restores it exactly
    copy = state.clone()
    for s in (state, copy):
        s.apply_action(s.legal_actions()[-1])
    assert str(copy) == str(state)
    again = game.deserialize_state(state.serialize())
    assert str(again) == str(state)
    assert again.information_state_string(1) == state.information_state_string(1)


def test_openspiel_observations_hide_what_the_rules_hide():
    pyspiel, adapter = _openspiel()
    game = adapter.load_game("march_of_progress/thirty_years_war")
    state = game.new_initial_state()
    # orange's hand is hidden from blue (but for its size): two positions that differ only in
    # which 7 cards orange holds look the same to blue
    state, other = state.clone(), state.clone()
    hand = state.match.game.spec.layout.by_path["p.hand"]
    state.match.game.raw[hand.offset + 1] = 0b01111111
    other.match.game.raw[hand.offset + 1] = 0b11111110
    assert state.observation_string(0) == other.observation_string(0)
    assert state.observation_tensor(0) == other.observation_tensor(0)
    assert state.information_state_string(0) == other.information_state_string(0)
    assert state.observation_string(1) != other.observation_string(1)
    # the information state remembers one's own moves; others' secret picks are not in it
    a, b = state.clone(), state.clone()
    blue = state.legal_actions(0)
    orange = state.legal_actions(1)
    a.apply_actions([blue[0], orange[0]])
    b.apply_actions([blue[1], orange[0]])
    assert a.information_state_string(0) != b.information_state_string(0)


def test_openspiel_a_game_cut_short_ends_with_zero_returns():
    pyspiel, adapter = _openspiel()
    game = adapter.load_game("march_of_progress/war_to_end_war", max_moves=5)
    assert game.max_game_length() == 5
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_simultaneous_node():
            state.apply_actions([(state.legal_actions(p) or [0])[0] for p in range(2)])
        else:
            state.apply_action(state.legal_actions()[0])
    assert state.move_number() <= 5 and state.returns() == [0.0, 0.0]
    assert not state.match.game.finished
