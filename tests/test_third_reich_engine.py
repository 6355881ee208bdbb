"""The Third Reich diplomacy layer through its generated engine: every country table resolved by
the engine (both ends of each table, and random rolls in between), the secrecy of commitments
until the reveal (and only of the named country), and save/load.

Rules: TR-DIP-ATT-06, TR-DIP-ATT-07, TR-DIP-ATT-08, TR-DIP-ATT-12, TR-DIP-ATT-13,
TR-DIP-COMMIT-01, TR-DIP-COMMIT-02, TR-DIP-FRANCE-01, TR-DIP-ITALY-01, TR-DP-NOTE-03
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from compile_helpers import REPO
from rulecraft.runtime import Game
from rulecraft.runtime.machine import IllegalDecision

GAME = "third_reich_diplomacy"
TABLES = yaml.safe_load((REPO / "rules" / GAME / "tables" / "countries.yaml").read_text())["tables"]
SEATS = ["germany", "italy", "britain", "france", "usa", "russia"]
GER, ITA, GB, FRA, USA, RUS = range(6)

# Countries named for a die roll in Spring 1941, with the board facts that let them be named.
NAMED: dict[str, dict[str, Any]] = {
    "bulgaria": {"g.western_factors_balkans": 100},
    "hungary": {"g.western_factors_balkans": 100},
    "rumania": {"g.western_factors_balkans": 100},
    "belgium": {"e.country.belgium.status": "neutral", "e.country.belgium.closed": False},
    "egypt": {},
    "greece": {},
    "iraq": {},
    "japan": {},
    "persia": {},
    "portugal": {},
    "soviet_union": {},
    "spain": {},
    "sweden": {},
    "turkey": {},
    "ukraine": {"e.city.kiev.control": "axis"},
    "ulster": {},
    "united_states": {},
    "vichy_france": {},
    "yugoslavia": {},
}


def new(scenario: str, seed: int = 1, fixed: bool = True) -> Game:
    """A new game; ``fixed``: Germany's activation attempts are asked at their fixed point
    each turn (the choice activation_at_any_time off), as these scripts were written."""
    g = Game.named(f"{GAME}/{scenario}", seed)
    if fixed:
        g = Game.new(g.spec.with_constants(activation_at_any_time=False), None, seed)
    return g


def idx(g: Game, kind: str, rid: str) -> int:
    return list(g.spec.ids[kind]).index(rid)


def rec(g: Game, kind: str, rid: str) -> dict[str, Any]:
    return g.state["e"][kind][idx(g, kind, rid)]


def set_state(g: Game, values: dict[str, Any]) -> None:
    for path, v in values.items():
        parts = path.split(".")
        if parts[0] == "g":
            g.state["g"][parts[1]] = v
        elif parts[0] == "p":
            g.state["p"][SEATS.index(parts[1])][parts[2]] = v
        else:
            rec(g, parts[1], parts[2])[parts[3]] = v
    g.reask()


def answer_all(g: Game, option: str) -> None:
    """Every pending seat answers ``option``."""
    for d in list(g.pending()):
        g.apply(d.player, option)


def log(g: Game, viewer: int | None = None) -> list[str]:
    return list(g.log_for(viewer))


def table_of(g: Game, country: str) -> str:
    return g.spec.ids["table"][rec(g, "country", country)["table"]]


def codes(table: str) -> list[str]:
    return [str(r["result"]) for r in TABLES[table]["rows"]]


def commit_and_name(g: Game, country: str, axis: int, allied: int) -> None:
    """Spring 1941: commit ``axis`` German and ``allied`` British DPs to ``country``; the side
    with DPs there names it."""
    set_state(g, {"p.germany.dps": 40, "p.britain.dps": 40, **NAMED[country]})
    answer_all(g, "number:0")  # foreign aid
    germany = f"alloc:germany_{country}={axis}" if axis else "alloc:none"
    britain = f"alloc:britain_{country}={allied}" if allied else "alloc:none"
    for d in list(g.pending()):
        opt = {GER: germany, GB: britain}.get(d.player, "alloc:none")
        g.apply(d.player, opt)
    g.apply(GER, "no")  # do not try to activate Finland
    who = GER if axis else GB
    if not axis:
        assert all(d.player != GER for d in g.pending())  # Germany had nothing to name
    ids = [o.id for o in g.legal(who)]
    assert f"country:{country}" in ids, ids
    g.apply(who, f"country:{country}")


@pytest.mark.parametrize("country", sorted(NAMED))
def test_every_named_table_at_both_ends(country: str) -> None:
    """Each named country's table, run by the engine: with 20 Axis DPs the last row, with 20
    Allied DPs the first (a roll below it counts as it), permanent results close the country.

    Rules: TR-DIP-ATT-07, TR-DIP-ATT-12, TR-DIP-ATT-13, TR-DIP-BELGIUM-01, TR-DIP-BELGIUM-02,
    TR-DIP-BULGARIA-01, TR-DIP-BULGARIA-05, TR-DIP-HUNGARY-01, TR-DIP-HUNGARY-04,
    TR-DIP-RUMANIA-01, TR-DIP-RUMANIA-04, TR-DIP-EGYPT-03, TR-DIP-GREECE-06, TR-DIP-IRAQ-02,
    TR-DIP-JAPAN-01, TR-DIP-JAPAN-04, TR-DIP-PERSIA-06, TR-DIP-PORTUGAL-02, TR-DIP-USSR-01,
    TR-DIP-USSR-09, TR-DIP-SWEDEN-04, TR-DIP-TURKEY-10, TR-DIP-UKRAINE-01, TR-DIP-UKRAINE-06,
    TR-DIP-ULSTER-01, TR-DIP-ULSTER-02, TR-DIP-USA-01, TR-DIP-USA-03, TR-DIP-VICHY-02,
    TR-DIP-YUGO-01, TR-DIP-YUGO-03, TR-DIP-SPAIN-FRANCO-04
    """
    for axis, allied, end in ((20, 0, -1), (0, 20, 0)):
        g = new("situation_1941", 7)
        table = table_of(g, country)
        commit_and_name(g, country, axis, allied)
        c = rec(g, "country", country)
        want = codes(table)[end]
        assert c["last"] == want, (country, table, c["last"], log(g)[-4:])
        row = TABLES[table]["rows"][end]
        if row.get("permanent"):
            assert c["closed"]
        assert c["named_year"]


@pytest.mark.parametrize("country", sorted(NAMED))
def test_every_named_table_with_random_rolls(country: str) -> None:
    seen = set()
    for seed in range(12):
        g = new("situation_1941", seed)
        table = table_of(g, country)
        commit_and_name(g, country, 1, 0)
        last = rec(g, "country", country)["last"]
        assert last in codes(table)
        seen.add(last)
    assert seen


def test_ally_of_the_power_that_committed_most() -> None:
    # Turkey 8+: the Axis power with most DPs (Germany 20, Italy 0) takes it; Hungary's table next.
    g = new("situation_1941", 3)
    commit_and_name(g, "turkey", 20, 0)
    t = rec(g, "country", "turkey")
    assert t["last"] == "8+" and t["status"] == "axis_ally" and t["patron"] == GER
    assert table_of(g, "turkey") == "hungary_active" and t["switched"] and not t["closed"]


def test_event_tables_france_and_italy() -> None:
    """Rules: TR-DIP-FRANCE-01, TR-DIP-FRANCE-02, TR-DIP-ITALY-01, TR-DIP-ITALY-06, TR-DIP-ATT-11"""
    g = new("campaign_1939_solo", 2)
    set_state(g, {"p.france.conquered": True, "p.italy.conquered": True})
    answer_all(g, "number:0")
    answer_all(g, "alloc:none")
    text = log(g)
    assert "France has fallen" in text and "Italy has been conquered or has surrendered" in text
    assert rec(g, "country", "france_fall")["last"] in codes("france")
    assert rec(g, "country", "italy_fall")["last"] in codes("italy")
    assert rec(g, "country", "vichy_france")["status"] == "neutral"
    assert rec(g, "country", "france_fall")["closed"] and rec(g, "country", "italy_fall")["closed"]


@pytest.mark.parametrize(
    "country,table", [("bhr", "bulgaria_hungary_rumania_inactive"), ("finland", "finland_inactive")]
)
def test_activation_tables(country: str, table: str) -> None:
    """Rules: TR-DIP-BHRI-04, TR-DIP-BHRI-06, TR-DIP-FINI-04, TR-DIP-FINI-07, TR-DIP-AFTER-03"""
    results = set()
    for seed in range(8):
        g = new("campaign_1939_solo", seed)
        set_state(g, {"g.year": 1942, "g.season": "summer"})  # late: activation likely
        answer_all(g, "number:0")
        answer_all(g, "alloc:none")
        while True:
            d = g.pending()[0]
            if country in d.prompt.lower() or ("bulgaria" in d.prompt.lower() and country == "bhr"):
                g.apply(GER, "yes")
                break
            g.apply(GER, "no")
        results.add(rec(g, "country", country)["last"])
        assert rec(g, "country", country)["last"] in codes(table)
    assert "3+" in results


def test_finland_active_table() -> None:
    """Rules: TR-DIP-FINA-01, TR-DIP-FINA-03"""
    g = new("situation_1942", 1)
    set_state(g, {"g.russian_factors_finland": 100, "g.axis_factors_finland": 0})
    answer_all(g, "number:0")
    for d in list(g.pending()):
        g.apply(d.player, "alloc:russia_finland=1" if d.player == RUS else "alloc:none")
    assert g.pending()[0].player == GB
    g.apply(GB, "country:finland")
    assert rec(g, "country", "finland")["last"] in codes("finland_active")


def test_commit_at_most_half_rounded_up() -> None:
    """Rules: TR-DIP-COMMIT-02, TR-DIP-COMMIT-03"""
    g = new("situation_1941", 1)
    set_state(g, {"p.germany.dps": 5})
    answer_all(g, "number:0")
    assert g.is_legal(GER, "alloc:germany_greece=3")
    assert not g.is_legal(GER, "alloc:germany_greece=4")
    assert not g.is_legal(GER, "alloc:italy_greece=1")  # no DPs given to another power
    with pytest.raises(IllegalDecision):
        g.apply(GER, "alloc:germany_greece=4")


def hidden(g: Game, viewer: int, commitment: str) -> bool:
    k = next(k for k in g.view(viewer)["e"]["commitment"] if k["id"] == commitment)
    return isinstance(k["dps"], dict) and k["dps"].get("hidden")


def test_commitments_secret_until_reveal_then_only_the_named_country() -> None:
    """Rules: TR-DIP-COMMIT-01, TR-DIP-ATT-06"""
    g = new("situation_1941", 3)
    answer_all(g, "number:0")
    for d in list(g.pending()):
        opt = {
            GER: "alloc:germany_sweden=1,germany_greece=2",
            ITA: "alloc:italy_greece=1",
            GB: "alloc:britain_sweden=1,britain_turkey=1",
            RUS: "alloc:russia_sweden=1",
        }[d.player]
        g.apply(d.player, opt)
    for viewer in range(6):
        for k in (
            "germany_sweden",
            "germany_greece",
            "italy_greece",
            "britain_sweden",
            "britain_turkey",
            "russia_sweden",
        ):
            owner = SEATS.index(k.split("_")[0])
            assert hidden(g, viewer, k) == (viewer != owner), (viewer, k)
    g.apply(GER, "no")
    g.apply(GER, "country:sweden")
    for viewer in range(6):
        for k in ("germany_sweden", "britain_sweden", "russia_sweden"):
            assert not hidden(g, viewer, k)
        for k in ("germany_greece", "italy_greece", "britain_turkey"):
            owner = SEATS.index(k.split("_")[0])
            assert hidden(g, viewer, k) == (viewer != owner), (viewer, k)
    # the log lines of the reveal are public; no line tells the hidden Greek or Turkish DPs
    for viewer in range(6):
        text = " ".join(log(g, viewer))
        assert "Germany committed 1 DP to Sweden" in text
        assert "to Greece" not in text and "to Turkey" not in text


def test_save_load_round_trip() -> None:
    g = new("situation_1941", 4)
    answer_all(g, "number:0")
    for d in list(g.pending()):
        g.apply(
            d.player,
            {GER: "alloc:germany_greece=2,germany_sweden=1", GB: "alloc:britain_greece=1"}.get(
                d.player, "alloc:none"
            ),
        )
    g.apply(GER, "no")
    copy = Game.from_json(g.to_json())
    assert copy.to_json() == g.to_json()
    for game in (g, copy):
        game.apply(GER, "country:greece")
    assert log(g) == log(copy)
    assert g.to_json() == copy.to_json()


def test_self_play_games_end() -> None:
    import random

    for scenario in ("situation_1941", "situation_1942", "campaign_1939_solo"):
        for seed in range(3):
            g = new(scenario, seed, fixed=False)
            rng = random.Random(seed)
            while not g.finished:
                d = g.pending()[0]
                g.apply_index(d.player, rng.randrange(len(d.options)))
            assert g.result["winners"] == [] and "last turn" in g.result["reason"]


def test_activation_window_offers_an_attempt_before_each_chance() -> None:
    """Rules: TR-DIP-AFTER-03 (activation attempts at any time, in addition to the three
    attempts). With the choice on, Germany is asked after the countdowns and before each
    power's chance; an attempt between the chances resolves the country there."""
    g = new("campaign_1939_solo", 1, fixed=False)
    answer_all(g, "number:0")
    answer_all(g, "alloc:none")
    prompts = []
    for _ in range(3):  # after the countdowns, before Germany's and before Italy's chance
        d = g.pending()[0]
        assert d.player == GER and [o.id for o in d.options][-1] == "none"
        prompts.append(d.prompt)
        if len(prompts) < 3:
            g.apply(GER, "none")
    assert prompts == ["Attempt to activate a country now?"] * 3
    assert "Germany has no country to name and passes" in log(g)
    assert "Italy has no country to name" not in " ".join(log(g))
    g.apply(GER, "country:finland")
    text = log(g)
    assert text.index("Germany attempts to activate Finland") > text.index(
        "Germany has no country to name and passes"
    )
    assert rec(g, "country", "finland")["last"] in codes("finland_inactive")
