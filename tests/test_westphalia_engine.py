"""Westphalia through its generated engine: six seats of bots finish (random, trading, Monte
Carlo), the secrecy of the Austrian Goal card (and of the cards drawn with it) until the
victory check, open negotiation as the rulebook reads it (and private offers when the reading
is switched), save and load in the middle of a window and of a Military Phase, shared victory
counted by `simulate`, and the rules of the windows (none in the Military Phase).

Rules: WEST-1-01, WEST-1-05, WEST-2-06, WEST-9-02, WEST-10C-01, WEST-10G-01, WEST-10G-02,
WEST-I2-01
"""

from __future__ import annotations

import random

import pytest
from rulecraft.runtime import Game, load_spec
from rulecraft.runtime.tools.agents import MonteCarloAgent, RandomAgent, TraderAgent, make_agent
from rulecraft.runtime.tools.simulate import simulate

GAME = "westphalia"
SEATS = ["austria", "bavaria", "spain", "france", "sweden", "dutch"]
AUS, BAV, SPA, FRA, SWE, DUT = range(6)


def new(seed: int = 0) -> Game:
    return Game.named(f"{GAME}/congress", seed)


def play(g: Game, agents: list, until: str | None = None) -> None:
    """Play with ``agents`` to the end (or until a decision of kind ``until``)."""
    while not g.finished:
        d = g.pending()[0]
        if until is not None and d.kind == until:
            return
        a = agents[d.player]
        view = g.view_state(d.player) if getattr(a, "needs_view", True) else None
        g.apply(d.player, a.choose(view, d, g.spec))


@pytest.mark.parametrize("kind", ["random", "trader"])
def test_six_bots_finish(kind):
    for seed in range(4):
        g = new(seed)
        play(g, [make_agent(kind, seed * 10 + k) for k in range(6)])
        r = g.result
        assert r is not None and not r["tie"]
        assert "Victory Conditions" in r["reason"]


@pytest.mark.long  # a whole six-player game, every decision searched: 10-25 s
def test_six_monte_carlo_bots_finish():
    g = new(5)
    play(g, [MonteCarloAgent(k, playouts=1, depth=1) for k in range(6)])
    assert g.result is not None


def test_traders_trade():
    agreed = 0
    for seed in range(3):
        g = new(seed)
        play(g, [TraderAgent(seed * 10 + k) for k in range(6)])
        agreed += sum(1 for line in g.log_for(None) if line.startswith("Agreed: "))
    assert agreed > 0


def test_the_goal_card_is_seen_only_by_austria_until_the_victory_check():
    g = new(3)
    drawn = {o.id for o in g.pending()[0].options}
    assert len(drawn) == 3 and g.pending()[0].player == AUS
    g.apply(AUS, sorted(drawn)[0])
    goal = g.view(AUS)["p"][AUS]["goal"]
    assert goal == g.state["p"][AUS]["goal"] and goal is not None
    for viewer in (BAV, SPA, FRA, SWE, DUT, None):
        v = g.view(viewer)
        assert v["p"][AUS]["goal"] == {"hidden": True}
        assert isinstance(v["g"]["goal_discards"], dict)  # the two discarded unseen
        assert isinstance(v["g"]["goal_deck"], dict)
    # the options of Austria's choice were never shown to the others: only its own view
    # lists them, and no log line names a Goal card before the victory check
    play(g, [RandomAgent(k) for k in range(6)])
    lines = g.log_for(SPA)
    named = [i for i, line in enumerate(lines) if line.startswith("Austria's Goal card:")]
    assert len(named) == 1
    assert not any("Goal card " in line for line in lines[: named[0]] if "keeps one" not in line)
    assert g.view(SPA)["p"][AUS]["goal"] != {"hidden": True}  # revealed at the end


def test_bots_sample_the_goal_card_they_cannot_see():
    from rulecraft.runtime.view import determinize

    g = new(3)
    g.apply(AUS, g.pending()[0].options[0].id)
    V = g.view_state(SPA)
    seen = set()
    for k in range(30):
        S = determinize(g.spec, V, random.Random(k))
        seen.add(Game(g.spec, S).state["p"][AUS]["goal"])
    assert None not in seen and len(seen) > 2


def test_offers_are_public_under_the_literal_reading_and_private_when_switched():
    text = "Austria offers: Austria gives Bavaria 1 Units"
    g = new(0)
    g.apply(AUS, g.pending()[0].options[0].id)
    g.apply(AUS, "offer:units:austria>bavaria=1")
    for viewer in (AUS, BAV, SPA, None):
        assert text in g.log_for(viewer)
    spec = g.spec.with_constants(open_negotiation=False)
    h = Game.new(spec, None, 0)
    h.apply(AUS, h.pending()[0].options[0].id)
    h.apply(AUS, "offer:units:austria>bavaria=1")
    assert text in h.log_for(AUS) and text in h.log_for(BAV)
    for viewer in (SPA, FRA, None):
        assert text not in h.log_for(viewer)
        assert "Austria makes an offer to Bavaria" in h.log_for(viewer)


def test_no_negotiation_in_the_military_phase_or_debt_resolution():
    g = new(2)
    agents = [RandomAgent(k) for k in range(6)]
    in_military = False
    while not g.finished:
        d = g.pending()[0]
        lines = g.log_for(None)
        last_phase = max(
            (
                i
                for i, line in enumerate(lines)
                if line.startswith(("Military Phase", "Diplomacy Phase"))
            ),
            default=-1,
        )
        in_military = last_phase >= 0 and lines[last_phase].startswith("Military Phase")
        if in_military or "Debt Resolution" in lines:
            assert d.kind != "propose"
        g.apply(d.player, agents[d.player].choose(None, d, g.spec))


def test_save_and_load_in_a_window_and_in_a_military_phase():
    g = new(4)
    agents = [RandomAgent(k) for k in range(6)]
    g.apply(AUS, g.pending()[0].options[0].id)
    d = g.pending()[0]
    g.apply(d.player, "offer:debts:" + SEATS[d.player] + ">" + SEATS[(d.player + 1) % 6] + "=1")
    copy = Game.from_json(g.to_json())
    assert copy.to_json() == g.to_json()
    for game in (g, copy):
        game.apply((d.player + 1) % 6, "yes")
    assert g.to_json() == copy.to_json()
    play(g, agents, until="choose-action")
    copy = Game.from_json(g.to_json())
    for game in (g, copy):
        play(game, [RandomAgent(k) for k in range(6)])
    assert g.log_for(None) == copy.log_for(None)
    assert g.result == copy.result


def test_simulate_counts_shared_victories_and_final_scoring():
    r = simulate(Game.named(f"{GAME}/congress", 0).spec, "congress", 40, 7, ["random"] * 6)
    assert sum(r.wins.values()) >= r.games - r.shared_defeats
    assert r.shared_victories > 0 and r.ties == 0
    assert "all six met their Victory Conditions: Final Scoring" in r.endings
    assert set(r.endings) <= {
        "Victory Conditions after Debt Resolution",
        "all six met their Victory Conditions: Final Scoring",
    }
    text = r.report()
    assert "shared victories" in text


# -- components, set-up and the switchable readings


def test_components_as_the_rulebook_counts_them():
    """Rules: WEST-I3B-03, WEST-I3B-04, WEST-I3B-05, WEST-I3B-06, WEST-I3D-01, WEST-I3D-03,
    WEST-I3D-04, WEST-I3D-07, WEST-I4-01, WEST-I3A-03, WEST-I3A-07, WEST-2-07, WEST-2-08"""
    g = new(0)
    spec = g.spec
    players = g.state["p"]
    # Claims discs: 12, 10, 8, 8, 8 less the Initiative marker; Austria uses none
    discs = {s: players[i]["discs"] for i, s in enumerate(SEATS)}
    assert discs == {"austria": 0, "bavaria": 7, "spain": 7, "france": 9, "sweden": 11, "dutch": 7}
    assert spec.constants["recatholicized_markers"] == 6
    owners = [spec.seats[a["owner"]] for a in g.state["e"]["army"]]
    assert len(owners) == 7 and owners.count("france") == 2
    assert len(spec.ids["commerce"]) == 9 and len(spec.ids["unrest"]) == 8
    assert len(spec.ids["goal"]) == 6
    assert sum(c["portuguese"] for c in g.state["e"]["commerce"]) == 1
    part = {s: players[i]["partnership"] for i, s in enumerate(SEATS)}
    assert {s for s, p in part.items() if p == "habsburg"} == {"austria", "bavaria", "spain"}
    assert all(1 <= a["points"] <= 3 for a in g.state["e"]["area"])
    assert (g.state["g"]["tolerance"], g.state["g"]["liberties"]) == (3, 0)
    # the game begins with the first Diplomacy Phase, decks shuffled face down
    assert g.pending()[0].kind == "choose-goal"
    v = g.view(SPA)
    assert v["g"]["commerce_deck"] == {"hidden": 9} and v["g"]["unrest_deck"] == {"hidden": 8}


def test_armies_stay_in_their_theater():
    """Rules: WEST-I3A-01, WEST-I3A-05"""
    g = new(0)
    for a in g.state["e"]["army"]:
        here = g.state["e"]["area"][a["location"]]
        assert here["theater"] == a["theater"]
    for area in g.state["e"]["area"]:
        for b in area["adjacent"]:
            assert g.state["e"]["area"][b]["theater"] == area["theater"]
    homes = {g.spec.seats[p] for area in g.state["e"]["area"] for p in area["home_of"]}
    assert homes == set(SEATS)


def test_debt_below_zero_is_a_switchable_reading():
    """Rules: WEST-9-03"""
    spec = new(0).spec
    assert spec.constants["debt_below_zero"] is False
    results = {}
    for reading in (False, True):
        g = Game.new(spec.with_constants(debt_below_zero=reading), None, 1)
        g.apply(AUS, g.pending()[0].options[0].id)
        g.state["g"]["diplomacy_phase"] = 3
        g.state["p"][AUS]["debt"] = 0
        g.reask()
        play(g, [RandomAgent(k) for k in range(6)])
        results[reading] = g.state["p"][AUS]["debt"]
    assert results[False] == 0 and results[True] < 0


def test_friendly_reading_changes_where_a_defender_may_refuse():
    """Rules: WEST-I4-03, WEST-5A-02, WEST-5C-13"""
    spec = new(0).spec
    assert spec.constants["friendly_if_not_hostile"] is False
    assert spec.constants["refuse_through_friendly_areas"] is False
    engine = spec.engine
    g = new(0)
    S = g.raw
    # Spain and Sweden are not at war: friendly only under the second reading
    assert not engine.f_friendly(S, SPA, SWE)
    other = spec.with_constants(friendly_if_not_hostile=True).engine
    assert other.f_friendly(S, SPA, SWE)
    assert not other.f_friendly(S, SPA, FRA)  # hostile powers are never friendly


def test_recatholicization_is_permanent():
    """Rules: WEST-5D-02, WEST-TS-03"""
    g = new(0)
    areas = list(g.spec.ids["area"])
    silesia = areas.index("silesia")
    g.state["e"]["area"][silesia]["claims"] = [SWE, SWE]
    g.state["e"]["area"][silesia]["recatholicized"] = True
    engine, S = g.spec.engine, g.raw
    assert engine.f_is_catholic(S, silesia)  # Catholic again, though Sweden holds it all
    assert engine.f_hre_discs(S) == 9 + 2  # Austria's Territory Threshold counts the discs


def _keep_out_areas(any_area: bool) -> tuple[int, dict[tuple[str, str], set[str]]]:
    """The Areas each directed pair may promise to keep out of in the first negotiation
    window of a random game (seed 0), with the choice keep_out_any_area as given."""
    import re

    spec = load_spec("westphalia", "congress").with_constants(keep_out_any_area=any_area)
    g = Game.new(spec, None, 0)
    rng = random.Random(0)
    for _ in range(200):
        d = g.pending()[0]
        if d.options and d.options[0].id.startswith("offer:"):
            pairs: dict[tuple[str, str], set[str]] = {}
            for o in d.options:
                m = re.fullmatch(r"offer:keep_out:(\w+)>(\w+)=(\w+)", o.id)
                if m:
                    pairs.setdefault((m[1], m[2]), set()).add(m[3])
            return len(g.state["e"]["area"]), pairs
        g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
    raise AssertionError("no negotiation window in 200 decisions")


def test_a_promise_to_keep_out_may_name_any_area_unless_the_choice_narrows_it():
    """Rules: WEST-1-04 ("Promises to do or not do something ... are binding"). Literal
    reading (choice keep_out_any_area, true): every pair may promise any Area. false: only
    Areas where the receiver holds a Claim, in a theater where the promiser has an Army."""
    areas, literal = _keep_out_areas(True)
    assert literal and all(len(v) == areas for v in literal.values())
    _, narrowed = _keep_out_areas(False)
    assert narrowed and all(v < literal[k] for k, v in narrowed.items())
