"""Counting the elements equal to a value: ``count([c for c in xs if c == v])`` is compiled
to ``xs.count(v)`` and ``count(...) > 0`` to ``v in xs`` (``ExprGen.element_count``), C
loops in place of Python ones, and they give what the filter gives."""

from __future__ import annotations

from pathlib import Path

from rulecraft.runtime import Game, load_spec
from rulecraft.runtime.tools.agents import RandomAgent

REPO = Path(__file__).resolve().parent.parent
WESTPHALIA = load_spec("westphalia", "congress")


def positions(spec, games=3, steps=150):
    for seed in range(games):
        g = Game.new(spec, spec.scenario, seed)
        agent = RandomAgent(seed)
        for step in range(steps):
            if g.finished:
                break
            if step % 5 == 0:
                yield g.raw
            d = g.pending()[0]
            g.apply(d.player, agent.choose(None, d, spec))


def test_points_of_counts_the_claims_of_a_power_as_the_filter_does():
    """Rules: WEST-6-01 (a Claim disc is a point of Territory). ``points_of`` counts
    ``[c for c in a.claims if c == q]``: compiled to a ``.count`` of the slot, it finds the
    discs of each power, in every area, of positions of random games."""
    text = (REPO / "generated" / "westphalia" / "engine.py").read_text()
    assert "return S[self.o_e_area__claims + v_a].count(v_q)" in text
    engine = WESTPHALIA.engine
    austria = WESTPHALIA.seats.index("austria")
    held = 0
    for S in positions(WESTPHALIA):
        for a in engine.all_area:
            claims = S[engine.o_e_area__claims + a]
            for q in engine.all_player:
                if q == austria:
                    continue
                expected = len([c for c in claims if c == q])
                assert engine.f_points_of(S, q, a) == expected
                held += expected
    assert held > 100


def test_a_split_of_envoys_gives_each_mission_what_was_sent_to_it():
    """The envoys fixture sets ``m.envoys = count([x for x in picks if x == m])`` after an
    ``allocate``: compiled to ``picks.count(m)``, each mission gets the envoys the chosen
    allocation sends it, for every allocation East may choose."""
    from fixtures.envoys import ROOT, SPEC

    text = (ROOT / "generated" / "envoys" / "engine.py").read_text()
    assert "v_picks.count(" in text
    first = Game.new(SPEC, None, 3)
    first.apply(0, "done")
    options = [o.id for o in first.pending()[0].options]
    assert len(options) > 10
    for oid in options:
        g = Game.new(SPEC, None, 3)
        g.apply(0, "done")
        g.apply(0, oid)
        g.apply(1, "alloc:none")
        sent = dict(part.split("=") for part in oid[len("alloc:") :].split(",") if "=" in part)
        got = {m["id"]: m["envoys"] for m in g.state["e"]["mission"] if m["id"].startswith("east")}
        assert got == {m: int(sent.get(m, 0)) for m in got}
