"""Fast checks of the hand-written Thirty Years War reference engine."""

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "handwritten_mop.py"


@pytest.fixture(scope="module")
def mop():
    spec = importlib.util.spec_from_file_location("handwritten_mop", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_200_games_finish(mop):
    w0, w1, ties, capped, decisions = mop.run_games(200)
    assert w0 + w1 + ties + capped == 200
    assert capped == 0
    assert w0 > 0 and w1 > 0
    assert decisions > 200


def test_invariants_after_every_turn(mop):
    seen = {"occupied": 0, "fortified": 0, "three_armies": 0, "max_strength": 1}

    def check(st):
        loc, fort, occ = st["loc"], st["fort"], st["occ"]
        assert st["stock"] + sum(st["vp"]) == mop.VP_STOCK
        assert st["stock"] >= 0 and min(st["vp"]) >= 0
        for p in (0, 1):
            slots = range(3 * p, 3 * p + 3)
            in_play = [s for s in slots if loc[s] >= 0]
            assert len(in_play) <= 3
            assert 1 <= st["stren"][p] <= mop.MAX_STRENGTH
            # hand and discard are disjoint and together hold all 8 cards
            assert st["hand"][p] & st["disc"][p] == 0
            assert st["hand"][p] | st["disc"][p] == mop.FULL_HAND
            assert st["hand"][p] & mop.SCORE_BIT
            for s in slots:
                assert loc[s] in (-1, 0, 1, 2)
                if loc[s] < 0:
                    assert fort[s] == 0
                else:
                    seen["fortified"] += fort[s]
            if occ[p] >= 0:
                seen["occupied"] += 1
                assert occ[p] in slots
                assert loc[occ[p]] == mop.HOME[1 - p]
            seen["three_armies"] += len(in_play) == 3
            seen["max_strength"] = max(seen["max_strength"], st["stren"][p])
        for c in (0, 1, 2):
            assert 0 <= st["vpd"][c] <= mop.VP_DICE_MAX[c]
        assert st["init"] in (0, 1)

    for seed in range(200):
        winner, turns, decisions = mop.play_random_game(seed, on_turn=check)
        assert winner in (0, 1, None)
        assert 1 <= turns <= mop.MAX_TURNS
    # the random games exercise the interesting parts of the rules
    assert seen["occupied"] > 0
    assert seen["fortified"] > 0
    assert seen["three_armies"] > 0
    assert seen["max_strength"] == mop.MAX_STRENGTH


def test_game_ends_at_18_vp(mop):
    last = {}

    def grab(st):
        last["vp"] = list(st["vp"])
        last["turn"] = st["turn"]

    for seed in range(50):
        winner, turns, _ = mop.play_random_game(seed, on_turn=grab)
        assert last["turn"] == turns
        v0, v1 = last["vp"]
        assert max(v0, v1) >= mop.WIN_VP
        assert winner == (0 if v0 > v1 else 1 if v1 > v0 else None)


def test_fixed_seed_fixed_result(mop):
    assert mop.play_random_game(12345) == (0, 22, 59)
    assert mop.play_random_game(7) == mop.play_random_game(7)
    assert mop.run_games(20, first_seed=100) == mop.run_games(20, first_seed=100)


def test_turn_cap_reports_draw(mop):
    winner, turns, _ = mop.play_random_game(3, max_turns=2)
    assert (winner, turns) == (None, 2)


class _Scripted:
    """Agent 'generator' that picks option i of n when fed (i, n)."""

    def __init__(self, picks):
        self.values = [(i + 0.5) / n for i, n in picks]

    def random(self):
        return self.values.pop(0)


def test_example_of_play(mop):
    # Rulebook "An Example of Play": Blue MOVE 1 into the neutral while Orange
    # recruits; Blue STRENGTH (forced onto its home die) while Orange moves 2
    # armies into the neutral; both ATTACK+1, Blue goes first, discards MOVE 2
    # and wins 3 vs 2; Orange's ATTACK+1 fizzles without a discard.
    agent = _Scripted(
        [
            (0, 7),
            (2, 7),  # turn 1 picks: blue MOVE1, orange RECRUIT (SCORE not yet legal)
            (5, 7),
            (1, 7),  # turn 2 picks: blue STRENGTH, orange MOVE2
            (1, 3),  # orange MOVE2 group: the pair at home (single, pair, single)
            (4, 6),
            (3, 6),  # turn 3 picks: both ATTACK+1
            (0, 2),  # who goes first: blue
            (0, 4),  # blue's ATTACK+1 discard: MOVE2
        ]
    )
    snaps = []

    def snap(st):
        snaps.append({k: (list(v) if isinstance(v, list) else v) for k, v in st.items()})

    mop.play_random_game(1, max_turns=3, on_turn=snap, agent=agent)
    assert agent.values == []
    t1, t2, t3 = snaps
    assert t1["played"] == (mop.MOVE1, mop.RECRUIT)
    assert t1["loc"] == [1, -1, -1, 2, 2, -1]
    assert t2["played"] == (mop.STRENGTH, mop.MOVE2)
    assert t2["loc"] == [1, -1, -1, 1, 1, -1]
    assert t2["vpd"] == [2, 2, 3] and t2["stren"] == [2, 1]
    assert t3["played"] == (mop.ATTACK1, mop.ATTACK1)
    assert t3["loc"] == [1, -1, -1, -1, -1, -1]
    assert t3["init"] == 1 - t2["init"]
    bit = lambda *cs: sum(1 << c for c in cs)  # noqa: E731
    assert t3["disc"][0] == bit(mop.MOVE1, mop.STRENGTH, mop.MOVE2, mop.ATTACK1)
    assert t3["disc"][1] == bit(mop.RECRUIT, mop.MOVE2, mop.ATTACK1)
    assert t3["vp"] == [0, 0] and t3["stock"] == mop.VP_STOCK
