"""Runtime: machine, rng, Game API, save/load, clone, errors, undo barrier."""

from __future__ import annotations

import json
import random

import pytest
from fixtures.toy import CARD_ID, ENDLESS, PACKAGE, SPEC, position_of
from rulecraft.runtime import (
    DeadEnd,
    Game,
    IllegalDecision,
    MalformedDecision,
    RulesError,
    UnknownGame,
    derive_seed,
    load_spec,
    new_state,
    resolve,
    run,
    undo_barrier,
)
from rulecraft.runtime.layout import DRAWS, RNG, STACK
from rulecraft.runtime.rng import randbelow, roll, shuffle


def random_game(seed: int, choices: int = 99, save_load: bool = False) -> tuple[Game, list]:
    """Play with decisions from a separate generator; returns the game and the decisions."""
    g = Game.new(SPEC, "duel", seed)
    r = random.Random(choices)
    made = []
    while not g.finished:
        if save_load:
            g = Game.from_json(g.to_json())
        d = g.pending()[0]
        opt = d.options[r.randrange(len(d.options))].id
        made.append((d.player, opt))
        g.apply(d.player, opt)
    return g, made


def generator(seed: int) -> list:
    """The header slots the generator uses (the state of a game is a list)."""
    S = [None] * (max(RNG, DRAWS) + 1)
    S[RNG], S[DRAWS] = seed, 0
    return S


def test_rng_is_deterministic_and_counts_draws():
    S = generator(12345)
    T = S[:]
    a = [roll(S, 6) for _ in range(200)]
    b = [roll(T, 6) for _ in range(200)]
    assert a == b and S[DRAWS] == 200
    assert set(a) == {1, 2, 3, 4, 5, 6}
    assert all(0 <= randbelow(S, 3) < 3 for _ in range(50))
    lst = list(range(20))
    shuffle(S, lst)
    assert sorted(lst) == list(range(20)) and lst != list(range(20))
    assert S[DRAWS] == 251
    assert 0 <= S[RNG] < 2**64


def test_rng_roughly_uniform():
    S = generator(1)
    counts = [0] * 6
    for _ in range(60000):
        counts[roll(S, 6) - 1] += 1
    assert all(9500 < c < 10500 for c in counts)


def test_generated_engines_roll_as_the_runtime_does():
    engine = PACKAGE.engine
    for sides in (2, 5, 6, 20):
        S, T = generator(777), generator(777)
        assert [engine._roll(S, sides) for _ in range(100)] == [roll(T, sides) for _ in range(100)]
        assert S == T


def test_fixed_rolls_show_their_values_and_leave_the_generator_as_it_was():
    """A fixed roll still draws (the rest of the game's chance is unchanged) and counts as a
    draw; the values are the game's own (a copy of its state rolls freely); a shuffle takes
    none; a value the die cannot show is refused when it is rolled."""
    from rulecraft.runtime.rng import FixedRollError, fix_rolls, fixed_left, unfix_rolls

    engine = PACKAGE.engine
    S, T = generator(777), generator(777)
    fix_rolls(S, [6, 1])
    fix_rolls(S, [20, 3])
    try:
        assert engine._shuffled(S, range(5)) == engine._shuffled(T, range(5))
        copy, free = S[:], T[:]
        assert [engine._roll(copy, 6) for _ in range(2)] == [roll(free, 6) for _ in range(2)]
        assert [engine._roll(S, 6), roll(S, 6), engine._roll(S, 20)] == [6, 1, 20]
        assert fixed_left(S) == [3]
        roll(T, 6), roll(T, 6), roll(T, 20)
        assert S == T
        with pytest.raises(FixedRollError, match="a die of 2 sides cannot show 3"):
            engine._roll(S, 2)
        assert fixed_left(S) == []
        assert engine._roll(S, 6) == (roll(T, 2), roll(T, 6))[1]
    finally:
        unfix_rolls(S)
    assert unfix_rolls(S) == []


def test_fixed_rolls_in_the_machine_and_the_playout_form():
    """Rules: both forms of an engine roll through the same die."""
    from rulecraft.runtime.machine import playout
    from rulecraft.runtime.rng import FixedRollError, fix_rolls, fixed_left, unfix_rolls

    g = Game.new(SPEC, "duel", 3)
    fix_rolls(g.raw, [5])
    try:
        for d in g.pending():
            g.apply(d.player, d.options[0].id)
        g.apply(0, "no")
        assert g.state["g"]["last_die"] == 5 and fixed_left(g.raw) == []
        fix_rolls(g.raw, [7])
        with pytest.raises(FixedRollError) as err:
            playout(g.spec, g.raw, random.Random(1).random)
        assert err.value.origin == position_of("let die = roll(6)")
    finally:
        unfix_rolls(g.raw)


def test_derive_seed_spreads():
    seeds = {derive_seed(7, i) for i in range(1000)}
    assert len(seeds) == 1000
    assert derive_seed(7, 3) == derive_seed(7, 3) != derive_seed(8, 3)
    assert all(0 <= s < 2**63 for s in seeds)


def test_new_game_waits_for_a_simultaneous_decision():
    g = Game.new(SPEC, "duel", 1)
    assert not g.finished and g.result is None and g.turn == 1
    pending = g.pending()
    assert [d.player for d in pending] == [0, 1]
    assert [d.seat for d in pending] == ["red", "blue"]
    assert all(d.kind == "choose-card" and len(d.options) == 3 for d in pending)
    assert g.legal(0) == list(pending[0].options)
    # the first answer is recorded; the machine waits for the second
    g.apply(0, g.legal(0)[0].id)
    assert [d.player for d in g.pending()] == [1]
    assert g.legal(0) == []
    g.apply(1, g.legal(1)[0].id)
    assert [(d.player, d.kind) for d in g.pending()] == [(0, "yes-no")]
    assert g.state["steps"] == 2


def test_determinism_same_seed_same_decisions_same_log():
    g1, made = random_game(5)
    g2 = Game.new(SPEC, "duel", 5)
    for player, opt in made:
        g2.apply(player, opt)
    assert g2.state == g1.state
    assert g1.state["log"] == g2.state["log"] and g1.finished


def test_different_seeds_differ():
    logs = {json.dumps(random_game(s)[0].state["log"]) for s in range(10)}
    assert len(logs) > 5


def test_save_and_load_at_every_decision_changes_nothing():
    for seed in range(5):
        plain, _ = random_game(seed)
        reloaded, _ = random_game(seed, save_load=True)
        assert reloaded.state == plain.state


def test_json_round_trip_is_exact_and_spec_is_found_by_name():
    g = Game.new(SPEC, "duel", 3)
    g.apply(0, g.legal(0)[1].id)  # a secret answer is pending
    h = Game.from_json(g.to_json())
    assert h.state == g.state and h.spec is SPEC
    h.apply(1, h.legal(1)[0].id)
    g.apply(1, g.legal(1)[0].id)
    assert h.state == g.state


def test_clone_is_independent():
    g = Game.new(SPEC, "duel", 2)
    c = g.clone()
    assert c.state == g.state and c.raw is not g.raw
    c.apply(0, c.legal(0)[0].id)
    c.apply(1, c.legal(1)[0].id)
    assert g.state["steps"] == 0 and g.pending()[0].kind == "choose-card"
    assert g.state["p"][0]["hand"] != c.state["p"][0]["hand"]
    assert g.state["log"] != c.state["log"]


def test_illegal_decision_lists_legal_ids():
    g = Game.new(SPEC, "duel", 1)
    hand = [CARD_ID[c] for c in g.state["p"][0]["hand"]]
    missing = next(c for c in ("c1", "c2", "c3", "c4", "c5") if c not in hand)
    with pytest.raises(IllegalDecision) as exc:
        g.apply(0, f"card:{missing}")
    msg = str(exc.value)
    assert f"'card:{missing}' is not a legal option for red" in msg
    assert all(f"card:{c}" in msg for c in hand)
    g.apply(0, f"card:{hand[0]}")
    with pytest.raises(IllegalDecision, match="red has no decision to make .waiting for blue"):
        g.apply(0, f"card:{hand[1]}")


def test_malformed_decisions():
    g = Game.new(SPEC, "duel", 1)
    with pytest.raises(MalformedDecision, match="no player 2"):
        g.apply(2, "card:c1")
    with pytest.raises(MalformedDecision, match="string"):
        g.apply(0, 1)  # type: ignore[arg-type]
    assert g.state["steps"] == 0


def test_finished_game_refuses_decisions():
    g, _ = random_game(4)
    assert g.finished and g.pending() == [] and g.legal(0) == []
    assert set(g.result) == {"winners", "tie", "reason"}
    with pytest.raises(IllegalDecision, match="over"):
        g.apply(0, "yes")


def test_endless_game_is_a_rules_error_with_origin():
    g = Game.new(SPEC, "endless", 1)
    assert g.spec is ENDLESS
    r = random.Random(0)
    with pytest.raises(RulesError, match="game runs endlessly") as exc:
        for _ in range(500):
            d = g.pending()[0]
            g.apply(d.player, d.options[r.randrange(len(d.options))].id)
    origin = exc.value.origin or ""
    assert origin.startswith("rules/toy/flow.yaml:"), f"no rules position in {exc.value!r}"


def test_failure_in_the_rules_points_at_the_rules():
    g = Game.new(SPEC, "duel", 1)
    g.apply(0, g.legal(0)[0].id)
    g.apply(1, g.legal(1)[0].id)
    # Red's face-down card vanishes: the reveal names the first card of an empty list
    g.state["p"][0]["played"] = []
    where = position_of('log "{red} reveals')
    with pytest.raises(RulesError) as exc:
        g.apply(0, "yes")
    assert exc.value.origin == where
    assert "first() of an empty list" in str(exc.value)
    assert str(exc.value).startswith(where + ": ")


def test_stack_running_empty_is_an_error():
    S = new_state(SPEC, 1)
    S[STACK] = None
    with pytest.raises(RulesError, match="never ended the game"):
        run(SPEC, S)


def test_ask_with_no_option_is_a_dead_end():
    g = Game.new(SPEC, "duel", 1)
    g.state["p"][1]["hand"] = []
    with pytest.raises(DeadEnd, match="'choose-card' for player 1 has no legal option"):
        g.reask()


def test_undo_barrier():
    g = Game.new(SPEC, "duel", 1)
    before = g.clone().state
    g.apply(0, g.legal(0)[0].id)
    assert undo_barrier(before, g.state) is None  # a secret answer: nothing was revealed
    g.apply(1, g.legal(1)[0].id)
    assert undo_barrier(before, g.state) is None  # committed, still hidden
    mid = g.clone().state
    g.apply(0, "yes")
    assert undo_barrier(before, g.state) == "dice were rolled"
    after = dict(mid, reveals=mid["reveals"] + 1)
    assert undo_barrier(mid, after) == "hidden information was revealed"


def test_load_spec_and_resolve_errors():
    assert load_spec("toy") is SPEC
    assert resolve("toy") == (SPEC, "duel")
    assert resolve("toy/endless") == (ENDLESS, "endless")
    with pytest.raises(UnknownGame, match="no scenario 'nope' .known: toy/duel, toy/endless"):
        resolve("toy/nope")
    with pytest.raises(UnknownGame, match="run `rulecraft compile`"):
        load_spec("no_such_game")


def test_runtime_imports_without_the_compiler():
    import subprocess
    import sys

    code = (
        "import sys; import rulecraft.runtime as r; import rulecraft.runtime.tools.terminal, "
        "rulecraft.runtime.tools.simulate, rulecraft.runtime.tools.agents; "
        "bad = [m for m in ('lark', 'jinja2', 'yaml', 'rulecraft.compiler') if m in sys.modules]; "
        "assert not bad, bad; assert set(r.exported) <= set(r.__all__)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_simulate_counts_games_stopped_at_the_turn_limit_as_draws():
    from rulecraft.runtime.machine import TurnLimit
    from rulecraft.runtime.tools.simulate import simulate

    g = Game.new(SPEC, "endless", 1)
    with pytest.raises(TurnLimit):
        while not g.finished:
            d = g.pending()[0]
            g.apply(d.player, d.options[0].id)
    result = simulate(ENDLESS, "endless", 3, 0, ["random"])
    assert result.ties == 3 and result.turn_limit == 3
    assert json.loads(result.to_json())["turn_limit"] == 3
    assert "3 of the ties stopped at the turn limit" in result.report()
