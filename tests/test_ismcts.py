"""Runtime: the ISMCTS bot (information-set Monte Carlo tree search).

Its decision depends on its view only: two games that differ only in what its seat cannot
see (the other hand, the face-down deck, the other's secret pick, hidden record values, the
generator) give the same choice for the same seed. A bot that peeks at the truth is caught
by the same check (the check can fail).
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from typing import Any

import pytest
from fixtures.toy import SPEC
from rulecraft.compiler.cli import main
from rulecraft.runtime import Game, GameError, make_agent, simulate
from rulecraft.runtime.layout import LOG, PENDING, RNG
from rulecraft.runtime.rng import seed_state
from rulecraft.runtime.tools.ismcts import MAX_ITERATIONS, ISMCTSAgent


def _positions(seed: int, steps: int) -> list[Game]:
    """Positions of a random toy game, one after each decision (the first turn included)."""
    g = Game.new(SPEC, "duel", seed)
    rng = random.Random(seed)
    out = [g.clone()]
    for _ in range(steps):
        if g.finished:
            break
        d = g.pending()[rng.randrange(len(g.pending()))]
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
        out.append(g.clone())
    return out


def _garbled(g: Game, viewer: int, rng: random.Random) -> Game:
    """The same game with everything ``viewer`` cannot see changed: the other's hand and deck
    reshuffled between them (sizes kept), the other's secret pick, the hidden strength of
    the other's marker, the generator and the seed."""
    h = g.clone()
    st = h.state
    other = 1 - viewer
    them = st["p"][other]
    pool = list(them["hand"]) + list(them["deck"])
    rng.shuffle(pool)
    n = len(them["hand"])
    them["hand"] = sorted(pool[:n])
    them["deck"] = pool[n:]
    answers = st["answers"]
    if str(other) in answers:
        answers[str(other)] = rng.choice(list(them["hand"]))
    strength = SPEC.layout.by_path["e.marker.strength"]
    for i, owner in enumerate(SPEC.data["s_e_marker__owner"]):
        if owner == other:
            h.raw[strength.offset + i] = rng.randrange(0, 9)
    if any(d[0] == other for d in h.raw[PENDING] or ()):
        h.reask()  # the other's pending options follow its new hand (nothing has answered)
    st["rng"] ^= rng.getrandbits(63)
    st["seed"] = rng.randrange(1 << 30)
    return h


def _asked(g: Game) -> list[Any]:
    return [d for d in g.pending() if len(d.options) > 1]


def _garbled_positions() -> Iterator[tuple[int, Game, Game, Any]]:
    """(seed, game, the game garbled where the asked seat cannot see, decision) at every
    decision with a choice of three random games' first 30 steps."""
    rng = random.Random(5)
    for seed in (1, 2, 3):
        for g in _positions(seed, 30):
            for d in _asked(g):
                yield seed, g, _garbled(g, d.player, rng), d


def test_choice_depends_only_on_the_view():
    """Across many positions, the garbled game shows the same view and gets the same choice,
    and the agent leaves the view as it was."""
    checked = 0
    for seed, g, h, d in _garbled_positions():
        assert h.raw != g.raw
        Vg, Vh = g.view_state(d.player), h.view_state(d.player)
        assert Vg == Vh  # the garbling touched only what the seat cannot see
        before = Vg[:]
        a = ISMCTSAgent(seed, iterations=60).choose(Vg, d, SPEC)
        b = ISMCTSAgent(seed, iterations=60).choose(Vh, d, SPEC)
        assert a == b and a in {o.id for o in d.options}
        assert Vg == before
        checked += 1
    assert checked >= 20


class _Peeking(ISMCTSAgent):
    """A broken bot: it searches the true game instead of worlds drawn from its view."""

    truth: list[Any]

    def determinize(self, spec: Any, view: list[Any]) -> list[Any]:
        S = self.truth[:]
        S[RNG] = seed_state(self.rng.getrandbits(64))  # its own dice, but the true cards
        S[LOG] = False
        return S


def test_the_check_catches_a_bot_that_peeks():
    differ = 0
    for seed, g, h, d in _garbled_positions():
        picks = []
        for game in (g, h):
            bot = _Peeking(seed, iterations=60)
            bot.truth = game.raw
            picks.append(bot.choose(game.view_state(d.player), d, SPEC))
        differ += picks[0] != picks[1]
    assert differ > 0


def test_iteration_and_time_budgets():
    g = Game.new(SPEC, "duel", 4)
    d = g.pending()[0]
    bot = ISMCTSAgent(1, iterations=37)
    assert bot.choose(g.view_state(d.player), d, SPEC) in {o.id for o in d.options}
    assert bot.last_iterations == 37
    timed = make_agent("ismcts:0.05s", 1)
    assert timed.choose(g.view_state(d.player), d, SPEC) in {o.id for o in d.options}
    assert timed.last_iterations >= 1


def test_make_agent_names():
    assert make_agent("ismcts", 1).iterations == 200
    assert make_agent("ismcts:50", 1).iterations == 50
    assert make_agent(f"ismcts:{MAX_ITERATIONS}", 1).iterations == MAX_ITERATIONS
    assert make_agent("ismcts:2s", 1).seconds == 2.0
    assert make_agent("ismcts:0.5s", 1).seconds == 0.5
    for bad in (
        "ismcts:0",
        f"ismcts:{MAX_ITERATIONS + 1}",
        "ismcts:x",
        "ismcts:0s",
        "ismcts:-1s",
        "ismcts:1e3s",
        "ismcts:²",
        "ismcts:s",
        "ismcts:..5s",
        "ismcts:700s",
    ):
        with pytest.raises(GameError, match="bad agent"):
            make_agent(bad, 1)
    with pytest.raises(GameError, match="ismcts:ITERATIONS"):
        make_agent("genius", 1)


def test_ismcts_beats_random():
    r = simulate(SPEC, "duel", 30, 11, ["ismcts:30", "random"])
    assert r.wins["red"] > 2 * r.wins["blue"]


def test_secret_allocations_are_searched():
    """Envoys: a simultaneous allocation (a lazily numbered Split of 23 options). With a
    sample of 8 the bot judges its own on a sample and widens the others' progressively;
    it plays whole games, and its choices depend only on its view."""
    from fixtures.envoys import SPEC as ENVOYS

    def bot(seed: int, iterations: int) -> ISMCTSAgent:
        b = ISMCTSAgent(seed, iterations=iterations)
        b.sample = 8
        return b

    for seed in range(3):
        g = Game.new(ENVOYS, None, seed)
        bots = [bot(seed, 30), make_agent("random", seed)]
        while not g.finished:
            for d in g.pending():
                g.apply(d.player, bots[d.player].choose(g.view_state(d.player), d, ENVOYS))
    g = Game.new(ENVOYS, None, 2)
    rng = random.Random(2)
    while not any(d.kind == "allocate" for d in g.pending()):
        d = g.pending()[0]
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    d = next(d for d in g.pending() if d.kind == "allocate")
    assert len(d.options) > 8  # its own judged on a sample
    V = g.view_state(d.player)
    own = next(x for x in V[PENDING] if x[0] == d.player)
    assert not isinstance(own[2], (list, tuple))  # numbered, never listed
    a = bot(9, 40).choose(V, d, ENVOYS)
    assert a == bot(9, 40).choose(g.view_state(d.player), d, ENVOYS)
    assert g.is_legal(d.player, a)


def test_commands_take_ismcts(capsys):
    assert main(["simulate", "toy", "--games", "2", "--agents", "ismcts:5,random"]) == 0
    assert "red=ismcts:5" in capsys.readouterr().out
    assert main(["simulate", "toy", "--games", "2", "--agents", "ismcts:0"]) == 1
    assert "ITERATIONS from 1 to" in capsys.readouterr().err


def test_play_takes_an_ismcts_seat(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # a game the input leaves unfinished is saved here
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 40))
    assert main(["play", "toy", "--seats", "human,ismcts:5", "--seed", "9"]) == 0
    assert "Game over:" in capsys.readouterr().out
    assert main(["play", "toy", "--seats", "human,ismcts:abc"]) == 1
    assert "bad agent 'ismcts:abc'" in capsys.readouterr().err


def test_a_secret_pick_is_chosen_without_seeing_the_other_pick():
    """At the first secret pick both seats choose at the root from statistics of their own
    (keyed by their own options only), and the child is the pair of choices."""
    g = Game.new(SPEC, "duel", 4)
    d = g.pending()[0]
    assert len(g.pending()) == 2 and SPEC.sites[g.raw[PENDING][0][1]].simultaneous
    bot = ISMCTSAgent(3, iterations=80)
    bot.choose(g.view_state(d.player), d, SPEC)
    root = bot.last_tree
    assert root is not None
    by_seat: dict[int, int] = {}
    for (p, _site, _value), st in root.stats.items():
        by_seat[p] = by_seat.get(p, 0) + st[0]
    assert by_seat == {0: 80, 1: 80}  # each seat chose once per iteration, on its own
    assert root.children and all(len(k) == 2 and k[0][0] != k[1][0] for k in root.children)
    # the other's options are drawn from worlds: cards it may hold, not only its true hand
    theirs = {k[2] for k in root.stats if k[0] == 1 - d.player}
    assert len(theirs) > len(g.legal(1 - d.player))


@pytest.mark.parametrize("name", ["westphalia", "third_reich_diplomacy"])
def test_larger_games_choice_depends_only_on_the_view(name):
    """Westphalia (six seats, negotiation) and the Third Reich diplomacy companion (secret
    commitments): another truth drawn consistent with the seat's view (its hidden parts
    dealt anew) shows the same view and gets the same, legal, choice."""
    from rulecraft.runtime import determinize, resolve
    from rulecraft.runtime.view import view

    spec, scenario = resolve(name)
    g = Game.new(spec, scenario, 3)
    rng = random.Random(3)
    checked = 0
    for step in range(60):
        if g.finished or checked == 3:
            break
        asked = [d for d in g.pending() if len(d.options) > 1]
        if asked and step % 10 == 0:
            d = asked[0]
            V = g.view_state(d.player)
            other = determinize(spec, V, random.Random(step))
            if view(spec, other, d.player, False) == V and other != g.raw:
                a = ISMCTSAgent(step, iterations=8).choose(V, d, spec)
                b = ISMCTSAgent(step, iterations=8).choose(
                    view(spec, other, d.player, False), d, spec
                )
                assert a == b and g.is_legal(d.player, a)
                checked += 1
        d = g.pending()[0]
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    assert checked >= 2
