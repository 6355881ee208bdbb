"""Rise of Totalitarianism: a Leader stacked under a face-down Action chit is hidden from the
other players until the chits are revealed (ROT-CHIT-05, ROT-RESOLVE-02), through the fog of
war on the leader entity; the leak check (tests/leak_helpers.py) finds no difference."""

from __future__ import annotations

import random

from leak_helpers import differences, fogged
from rulecraft.runtime import Game, load_spec
from rulecraft.runtime.layout import NO_REF

SPEC = load_spec("rise_of_totalitarianism", "scenario_a")


def _stacked_position() -> tuple[Game, int, int]:
    """A random game's first position where a Leader stands under a chit, not yet revealed:
    the game, the Leader's index and the seat that stacked him."""
    box = SPEC.layout.by_path["e.leader.box"]
    chit = SPEC.layout.by_path["e.leader.chit"]
    owner = SPEC.layout.by_path["e.leader.owner"]
    for seed in range(40):
        g = Game.new(SPEC, None, seed)
        rng = random.Random(seed)
        while not g.finished:
            S = g.raw
            for i in range(chit.count):
                # a chit and an owner (references: -1 for none)
                if S[chit.offset + i] != NO_REF and S[owner.offset + i] != NO_REF:
                    if i in fogged(SPEC, S, (S[owner.offset + i] + 1) % len(SPEC.seats))["leader"]:
                        assert S[box.offset + i] is not None
                        return g, i, S[owner.offset + i]
            d = rng.choice(g.pending())
            g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    raise AssertionError("no random game stacked a Leader under a chit")


def test_a_stacked_leader_is_hidden_from_the_others_until_revealed():
    g, i, stacker = _stacked_position()
    rng = random.Random(0)
    for seat in [None, *range(len(SPEC.seats))]:
        if seat == stacker:
            assert i not in fogged(SPEC, g.raw, seat)["leader"]
        else:
            assert i in fogged(SPEC, g.raw, seat)["leader"]
        assert differences(SPEC, g.raw, seat, rng) == []
    # revealed with the chits: once the Resolve Actions step has begun, everyone sees him
    while i in fogged(SPEC, g.raw, None)["leader"] and not g.finished:
        d = g.pending()[0]
        g.apply(d.player, d.options[0].id)
    assert all(i not in fogged(SPEC, g.raw, s)["leader"] for s in range(len(SPEC.seats)))
