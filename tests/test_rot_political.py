"""Rise of Totalitarianism, the political part: the Alliance of a Minor Party, the Control of
Leaders, the Choice of Candidates and the Votes of Leaders in a Parliament, read from the
generated engine's functions on positions written slot by slot."""

from __future__ import annotations

import pytest
from rulecraft.runtime import Game
from rulecraft.runtime.registry import load_spec


@pytest.fixture(scope="module")
def spec():
    return load_spec("rise_of_totalitarianism", "scenario_a")


@pytest.fixture
def g(spec):
    return Game.new(spec, None, 0)


def seat(spec, name):
    return spec.seats.index(name)


def index(g, kind, name):
    return [x["id"] for x in g.state["e"][kind]].index(name)


def put(spec, g, path, k, value):
    g.raw[spec.layout.by_path[path].offset + k] = value


def test_the_ally_of_a_minor_party_is_the_natural_ally_then_most_cubes_then_the_furthest(spec, g):
    """Rules: ROT-ALLY-01"""
    e = spec.engine
    com, fas, sd = (seat(spec, s) for s in ("communism", "fascism", "social_democracy"))
    t = index(g, "party", "de_catholics")
    assert e.f_party_ally(g.raw, t) == sd  # no cube: the Natural Ally of the first box
    put(spec, g, "e.party.cubes", t, (fas, com, com))
    assert e.f_party_ally(g.raw, t) == com  # most cubes
    put(spec, g, "e.party.cubes", t, (com, fas))
    assert e.f_party_ally(g.raw, t) == fas  # a tie: the cube furthest from the flag
    put(spec, g, "e.party.cubes", t, (fas, com, sd, com))
    assert e.f_party_ally(g.raw, t) == com
    put(spec, g, "e.party.cubes", t, (sd, sd, fas, fas))
    assert e.f_party_ally(g.raw, t) == fas


def test_control_of_leaders(spec, g):
    """Rules: ROT-LDR-01, ROT-LDR-02, ROT-LDR-03"""
    e = spec.engine
    com, fas, sd = (seat(spec, s) for s in ("communism", "fascism", "social_democracy"))
    levi, marx = index(g, "leader", "levi"), index(g, "leader", "marx")
    catholics = index(g, "party", "de_catholics")
    for box in ("unaligned", "arrested", "exile", "out"):
        put(spec, g, "e.leader.box", levi, box)
        put(spec, g, "e.leader.box", marx, box)
        assert e.f_leader_controller(g.raw, levi) is None
        assert e.f_leader_controller(g.raw, marx) is None
    # an Ideology's Leader: his player's, in the Pool or on the board
    put(spec, g, "e.leader.box", levi, "pool")
    put(spec, g, "e.leader.pool_of", levi, com)
    assert e.f_leader_controller(g.raw, levi) == com
    put(spec, g, "e.leader.box", levi, "area")
    assert e.f_leader_controller(g.raw, levi) == com
    # a Minor Party Leader: the Pool's holder; alone in an Area, the party's Ally
    put(spec, g, "e.leader.box", marx, "pool")
    put(spec, g, "e.leader.pool_of", marx, fas)
    assert e.f_leader_controller(g.raw, marx) == fas
    put(spec, g, "e.leader.box", marx, "area")
    assert e.f_leader_controller(g.raw, marx) == sd  # the Natural Ally, no cube
    put(spec, g, "e.party.cubes", catholics, (com,))
    assert e.f_leader_controller(g.raw, marx) == com
    # in a Parliament box: the Control Cube
    put(spec, g, "e.leader.box", marx, "parliament")
    put(spec, g, "e.leader.control_cube", marx, fas)
    assert e.f_leader_controller(g.raw, marx) == fas


def test_candidates_pool_parliament_or_unaligned_allies_never_ebert_for_chancellor(spec, g):
    """Rules: ROT-CAND-01, ROT-CAND-02"""
    e = spec.engine
    com, fas, sd = (seat(spec, s) for s in ("communism", "fascism", "social_democracy"))
    germany, italy = index(g, "major", "germany"), index(g, "major", "italy")
    names = [x["id"] for x in g.state["e"]["leader"]]

    def cands(p, m, s):
        return sorted(names[k] for k in e.f_candidates(g.raw, p, m, s))

    # Ebert (President, printed) may stand for President, never for the Chancellorship;
    # Marx and Papen of the German Catholics (Allied: their Natural Ally) wait Unaligned
    assert cands(sd, germany, "president") == ["ebert", "marx", "papen"]
    assert cands(sd, germany, "chancellor") == ["marx", "papen"]
    # Unaligned Leaders of the player's own Ideology and nationality only
    assert cands(com, germany, "chancellor") == ["levi", "liebknecht", "luxemburg"]
    assert cands(fas, italy, "prime_minister") == ["mussolini"]
    # an Allied Minor Party changes hands with its track
    catholics = index(g, "party", "de_catholics")
    put(spec, g, "e.party.cubes", catholics, (fas,))
    assert cands(fas, germany, "chancellor") == ["hitler", "marx", "papen"]
    assert cands(sd, germany, "chancellor") == []
    # a Leader in the player's Pool, whatever his Ideology; an arrested one never
    levi = names.index("levi")
    put(spec, g, "e.leader.box", levi, "pool")
    put(spec, g, "e.leader.pool_of", levi, sd)
    assert cands(sd, germany, "chancellor") == ["levi"]
    put(spec, g, "e.leader.box", levi, "arrested")
    assert "levi" not in cands(sd, germany, "chancellor") + cands(com, germany, "chancellor")
    # a Leader controlled in a Parliament box
    marx = names.index("marx")
    put(spec, g, "e.leader.box", marx, "parliament")
    put(spec, g, "e.leader.control_cube", marx, sd)
    assert cands(sd, germany, "chancellor") == ["marx"]


def test_controlled_leaders_give_two_votes_never_the_president(spec, g):
    """Rules: ROT-VOTE-01 (Leaders in a Parliament count 2 Votes for their controller; the
    President, Ebert at set-up, none)."""
    e = spec.engine
    sd = seat(spec, "social_democracy")
    germany = index(g, "major", "germany")
    before = e.f_parliament_votes(g.raw, sd, germany)
    assert before == 6  # the six Vote Cubes; Ebert is President
    marx = index(g, "leader", "marx")
    put(spec, g, "e.leader.box", marx, "parliament")
    put(spec, g, "e.leader.control_cube", marx, sd)
    assert e.f_parliament_votes(g.raw, sd, germany) == before + 2


def test_each_minor_party_has_a_german_and_an_italian_track(spec, g):
    """Rules: ROT-BOARD-10 (two Minor Party Tracks per Minor Party, Italy and Germany, with
    the Natural Ally of the first box)"""
    tracks = g.state["e"]["party"]
    majors = [m["id"] for m in g.state["e"]["major"]]
    by_party: dict[str, set[str]] = {}
    for t in tracks:
        party = t["name"].split(" ", 1)[1]
        by_party.setdefault(party, set()).add(majors[t["major"]])
        assert t["natural_ally"] in range(len(spec.seats))
        assert t["length"] >= 3  # the second and third boxes are the Govt. Coalition boxes
    assert by_party == {
        p: {"germany", "italy"} for p in ("Socialists", "Catholics", "Liberals", "Nationalists")
    }


def test_leaders_in_the_three_leader_boxes_are_nobodys(spec, g):
    """Rules: ROT-BOARD-06 (Arrested or Confined, Exile and Unaligned Leaders boxes), ROT-LDR-01"""
    e = spec.engine
    for k, leader in enumerate(g.state["e"]["leader"]):
        if leader["id"] == "ebert":
            assert leader["box"] == "parliament"
            assert e.f_leader_controller(g.raw, k) == seat(spec, "social_democracy")
            continue
        assert leader["box"] == "unaligned"
        for box in ("arrested", "exile", "unaligned"):
            put(spec, g, "e.leader.box", k, box)
            assert e.f_leader_controller(g.raw, k) is None
