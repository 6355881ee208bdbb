"""Marlborough's scenario set-ups against the rulebook's printed tables (Scenarios 1-4).

Each scenario file must hold every unit its set-up prints, fleets and admirals too (21.0: their
ports are assumed where the line says "any ... ports"), of the printed type and side (veteran
or recruit), in one of the places its line allows; its leaders on the
map or, when "available but not deployed", off it; the printed initial control, treasury
points, campaign markers and garrison destroyed markers. Scenario 4's files take one of the
three set-ups and play to 1714.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent / "rules" / "marlborough"
HEXES = yaml.safe_load((ROOT / "board.yaml").read_text())["board"]["hexes"]
NEUTRAL = None
B, GA = "bourbon", "grand_alliance"


# fleets (and admirals) have their own tables, FLEETS_PRINTED and ADMIRALS below
FLEETS = ("battle_fleet", "frigate_fleet")


def scenario(name: str) -> dict:
    return yaml.safe_load((ROOT / "scenarios" / f"{name}.yaml").read_text())


def hex_of(at: str) -> dict:
    return HEXES[at[1:]]


# (owner, unit nation) -> {(kind, veteran): count}; kinds fa, sa, fc, g (garrisons: veteran
# false, the printed counter has one side); places: states or named places a unit may stand in
TROOPS = {
    "blenheim": {
        (NEUTRAL, "saxony"): ({"g": 1}, {"Leipzig"}),
        (NEUTRAL, "denmark"): ({"rfa": 1, "g": 1}, {"Copenhagen"}),
        (NEUTRAL, "swiss_confederation"): ({"vfa": 2, "g": 2}, {"Berne", "Zurich"}),
        (NEUTRAL, "venice"): ({"vfa": 1, "g": 1}, {"Venice"}),
        (NEUTRAL, "italian_states"): ({"g": 2}, {"Genoa", "Florence"}),
        (NEUTRAL, "papal_states"): ({"vfa": 1, "g": 1}, {"Rome", "Ravenna"}),
        (NEUTRAL, "barbary_states"): ({"g": 4}, {"Algiers", "Oran", "Tunis", "Bone"}),
        (B, "france"): (
            {"vfa": 5, "rfa": 7, "vsa": 4, "rsa": 3, "g": 10},
            {"france", "Ulm", "Nieuport", "Ghent", "Brussels", "Namur", "Luxembourg", "Kehl"},
        ),
        (B, "spain"): ({"vfa": 1, "rfa": 3, "rsa": 1, "g": 1}, {"spain", "milan", "two_sicilies"}),
        (B, "bavaria"): ({"vfa": 1, "rfa": 1, "rsa": 1, "g": 1}, {"bavaria"}),
        (B, "hungary"): ({"vfc": 1, "rfa": 1}, {"hungary"}),
        (GA, "austria"): ({"vfa": 2, "rfa": 1, "vsa": 2, "rfc": 1, "g": 2}, {"austria", "h3121"}),
        (GA, "england"): (
            {"vfa": 4, "rfa": 1, "vsa": 2, "g": 4},
            {"united_provinces", "england", "ireland"},
        ),
        (GA, "united_provinces"): (
            {"vfa": 2, "rfa": 2, "vsa": 1, "rsa": 1, "g": 2},
            {"united_provinces", "Antwerp", "Liege"},
        ),
        (GA, "prussia"): ({"vfa": 2, "vsa": 1, "g": 1}, {"prussia"}),
        (GA, "german_states"): (
            {"vfa": 1, "rfa": 2, "rsa": 1, "g": 2},
            {"united_provinces", "Worms", "Bremen", "Cologne"},
        ),
        (GA, "portugal"): ({"rfa": 1, "rsa": 1, "g": 1}, {"portugal"}),
        (GA, "savoy"): ({"rfa": 2}, {"savoy"}),
    },
    "opening_guns": {
        (NEUTRAL, "saxony"): ({"g": 1}, {"Leipzig"}),
        (NEUTRAL, "denmark"): ({"g": 1}, {"Copenhagen"}),
        (NEUTRAL, "swiss_confederation"): ({"vfa": 2, "g": 2}, {"Berne", "Zurich"}),
        (NEUTRAL, "venice"): ({"vfa": 1, "g": 1}, {"Venice"}),
        (NEUTRAL, "italian_states"): ({"g": 2}, {"Genoa", "Florence"}),
        (NEUTRAL, "papal_states"): ({"vfa": 1, "g": 1}, {"Rome", "Ravenna"}),
        (NEUTRAL, "barbary_states"): ({"g": 4}, {"Algiers", "Oran", "Tunis", "Bone"}),
        (NEUTRAL, "portugal"): ({"rfa": 1, "g": 1}, {"Lisbon", "Oporto"}),
        (GA, "austria"): (
            {"vfa": 2, "rfa": 2, "vsa": 1, "rsa": 1, "vfc": 1, "g": 3},
            {"austria", "hungary"},
        ),
        (GA, "england"): ({"vfa": 3, "rfa": 1, "vsa": 1, "g": 5}, {"england", "ireland"}),
        (GA, "united_provinces"): (
            {"vfa": 2, "rfa": 1, "vsa": 1, "rsa": 1, "g": 2},
            {"united_provinces", "Antwerp", "Liege"},
        ),
        (GA, "prussia"): ({"vfa": 1, "vsa": 1, "g": 1}, {"prussia"}),
        (GA, "german_states"): ({"rfa": 2, "g": 2}, {"Koblenz", "Bremen", "Cologne"}),
        (GA, "hungary"): ({"vfa": 1, "vfc": 1}, {"austria", "hungary"}),
        (B, "france"): ({"vfa": 5, "rfa": 5, "vsa": 3, "rsa": 3, "g": 5}, {"france"}),
        (B, "spain"): (
            {"vfa": 1, "rfa": 3, "rsa": 2, "g": 2},
            {
                "spain",
                "milan",
                "two_sicilies",
                "Nieuport",
                "Ghent",
                "Brussels",
                "Namur",
                "Luxembourg",
            },
        ),
        (B, "bavaria"): ({"vfa": 1, "rfa": 1, "rsa": 1, "g": 1}, {"bavaria"}),
        (B, "savoy"): ({"rfa": 2}, {"savoy"}),
    },
    "ne_plus_ultra": {
        (NEUTRAL, "saxony"): ({"rfa": 1, "g": 1}, {"Dresden", "Leipzig"}),
        (NEUTRAL, "denmark"): ({"rfa": 1, "g": 1}, {"Copenhagen"}),
        (NEUTRAL, "swiss_confederation"): ({"vfa": 2, "g": 2}, {"Berne", "Zurich"}),
        (NEUTRAL, "venice"): ({"vfa": 1, "g": 1}, {"Venice"}),
        (NEUTRAL, "italian_states"): ({"g": 2}, {"Genoa", "Florence"}),
        (NEUTRAL, "papal_states"): ({"vfa": 1, "g": 1}, {"Rome", "Ravenna"}),
        (NEUTRAL, "barbary_states"): ({"g": 4}, {"Algiers", "Oran", "Tunis", "Bone"}),
        (B, "france"): (
            {"vfa": 7, "rfa": 5, "vsa": 5, "rsa": 3, "g": 5},
            {"france", "spain", "Luxembourg", "Kehl"},
        ),
        (B, "spain"): ({"vfa": 1, "rfa": 2, "vsa": 1, "rsa": 1, "g": 2}, {"spain", "two_sicilies"}),
        (B, "hungary"): ({"vfc": 1}, {"hungary"}),
        (GA, "austria"): (
            {"vfa": 3, "rfa": 3, "vsa": 1, "rsa": 1, "vfc": 1, "g": 6},
            {
                "austria",
                "bavaria",
                "german_states",
                "hungary",
                "spanish_netherlands",
                "milan",
                "savoy",
            },
        ),
        (GA, "england"): (
            {"vfa": 5, "rfa": 1, "vsa": 3, "g": 7},
            {
                "united_provinces",
                "spanish_netherlands",
                "england",
                "ireland",
                "Gibraltar",
                "Cartagena",
                "Valencia",
                "Barcelona",
            },
        ),
        (GA, "united_provinces"): (
            {"vfa": 2, "rfa": 2, "vsa": 1, "rsa": 1, "g": 3},
            {"united_provinces", "spanish_netherlands"},
        ),
        (GA, "prussia"): ({"vfa": 2, "vsa": 1, "g": 1}, {"german_states", "prussia"}),
        (GA, "german_states"): (
            {"rfa": 2, "rsa": 1, "g": 2},
            {"german_states", "spanish_netherlands", "bavaria"},
        ),
        (GA, "portugal"): (
            {"vfa": 1, "rfa": 1, "rsa": 1, "g": 1},
            {"portugal", "Cartagena", "Valencia", "Barcelona"},
        ),
        (GA, "savoy"): ({"vfa": 1, "rfa": 1, "rsa": 1, "g": 1}, {"savoy", "milan", "Cagliari"}),
    },
}
# (owner, unit nation) -> ({(kind, veteran): count}, places): kinds bf battle fleet, ff frigate
# fleet; the places are the ports the set-up's line allows (3.4, 5.4, 6.4)
FLEETS_PRINTED = {
    "blenheim": {
        (NEUTRAL, "venice"): ({"vbf": 1}, {"Venice"}),
        (NEUTRAL, "italian_states"): ({"rbf": 1}, {"Genoa"}),
        (NEUTRAL, "barbary_states"): ({"rff": 1}, {"Algiers"}),
        (B, "france"): ({"vbf": 1, "rbf": 1, "vff": 1}, {"france"}),
        (B, "spain"): ({"rbf": 1, "rff": 1}, {"spain"}),
        (GA, "england"): (
            {"vbf": 3, "vff": 2},
            {"england", "spain", "portugal", "united_provinces"},
        ),
        (GA, "united_provinces"): ({"vbf": 2, "vff": 1}, {"united_provinces"}),
        (GA, "portugal"): ({"rbf": 1}, {"portugal"}),
    },
    "opening_guns": {
        (NEUTRAL, "venice"): ({"vbf": 1}, {"Venice"}),
        (NEUTRAL, "italian_states"): ({"rbf": 1}, {"Genoa"}),
        (NEUTRAL, "barbary_states"): ({"rff": 1}, {"Algiers"}),
        (NEUTRAL, "portugal"): ({"rbf": 1}, {"Lisbon"}),
        (GA, "england"): ({"vbf": 2, "rbf": 1, "vff": 2}, {"england", "ireland"}),
        (GA, "united_provinces"): ({"vbf": 2, "vff": 1}, {"united_provinces"}),
        (B, "france"): ({"vbf": 1, "rbf": 1, "vff": 2}, {"france"}),
        (B, "spain"): ({"rbf": 2, "rff": 1}, {"spain"}),
    },
    "ne_plus_ultra": {
        (NEUTRAL, "venice"): ({"vbf": 1}, {"Venice"}),
        (NEUTRAL, "italian_states"): ({"rbf": 1}, {"Genoa"}),
        (NEUTRAL, "barbary_states"): ({"rff": 1}, {"Algiers"}),
        (B, "france"): ({"rbf": 1, "vff": 2}, {"france"}),
        (B, "spain"): ({"rbf": 1, "rff": 1}, {"Cadiz", "Cartagena"}),
        (GA, "england"): (
            {"vbf": 3, "vff": 2},
            {"england", "portugal", "united_provinces", "Gibraltar", "Valencia", "Barcelona"},
        ),
        (GA, "united_provinces"): ({"vbf": 2, "vff": 1}, {"united_provinces"}),
        (GA, "portugal"): ({"rbf": 1, "rff": 1}, {"portugal"}),
    },
}
# admirals: each on the map with fleets of his state (5.4, 6.4: in the same line as the fleets)
ADMIRALS = {
    "blenheim": {"toulouse", "rooke", "byng"},
    "opening_guns": {"toulouse", "rooke", "byng"},
    "ne_plus_ultra": {"toulouse", "rooke", "byng"},
}
# leaders: on the map, off it (available but not deployed)
LEADERS = {
    "blenheim": (
        {
            "tallard",
            "vauban",
            "vendome",
            "villars",
            "berwick",
            "villeroi",
            "orleans",
            "maximilian",
            "rakoczy",
            "styrum",
            "reventlau",
            "eugene",
            "marlborough",
            "stanhope",
            "frederick",
            "louis",
            "hanover",
            "victor",
        },
        {"butler"},
    ),
    "opening_guns": (
        {
            "eugene",
            "styrum",
            "reventlau",
            "marlborough",
            "stanhope",
            "frederick",
            "louis",
            "hanover",
            "villars",
            "vendome",
            "berwick",
            "orleans",
            "tallard",
            "villeroi",
            "maximilian",
            "victor",
        },
        {"butler", "rakoczy", "vauban"},
    ),
    "ne_plus_ultra": (
        {
            "villars",
            "vendome",
            "berwick",
            "tallard",
            "villeroi",
            "orleans",
            "rakoczy",
            "eugene",
            "styrum",
            "reventlau",
            "marlborough",
            "stanhope",
            "frederick",
            "louis",
            "hanover",
            "victor",
        },
        {"maximilian"},
    ),
}
CONTROL = {
    "blenheim": (
        {"france", "spain", "bavaria", "hungary", "two_sicilies", "milan", "spanish_netherlands"},
        {
            "austria",
            "england",
            "united_provinces",
            "prussia",
            "ireland",
            "german_states",
            "portugal",
            "savoy",
        },
        {
            "saxony",
            "denmark",
            "swiss_confederation",
            "venice",
            "italian_states",
            "papal_states",
            "barbary_states",
        },
    ),
    "opening_guns": (
        {"france", "spain", "bavaria", "savoy", "two_sicilies", "milan", "spanish_netherlands"},
        {
            "austria",
            "england",
            "united_provinces",
            "prussia",
            "ireland",
            "german_states",
            "hungary",
        },
        {
            "saxony",
            "denmark",
            "swiss_confederation",
            "portugal",
            "venice",
            "italian_states",
            "papal_states",
            "barbary_states",
        },
    ),
    "ne_plus_ultra": (
        {"france", "spain", "bavaria", "hungary", "two_sicilies", "milan", "spanish_netherlands"},
        {
            "austria",
            "england",
            "united_provinces",
            "prussia",
            "ireland",
            "german_states",
            "portugal",
            "savoy",
        },
        {
            "saxony",
            "denmark",
            "swiss_confederation",
            "venice",
            "italian_states",
            "papal_states",
            "barbary_states",
        },
    ),
}
# (BOPI, first year, turns, Bourbon TP, Grand Alliance TP, Bourbon markers, GA markers)
START = {
    "blenheim": (6, 1704, 1, 50, 70, 8, 10),
    "opening_guns": (5, 1701, 5, 60, 50, 5, 3),
    "ne_plus_ultra": (-5, 1709, 4, 40, 60, 10, 8),
}
DESTROYED = {
    "blenheim": {"Antwerp", "Liege", "Kehl", "Ulm"},
    "opening_guns": {"Antwerp", "Liege"},
    # 7.2, and (8.3, assumed) Bavaria's and Hungary's fortresses begin Grand Alliance-occupied
    "ne_plus_ultra": {
        "Lille",
        "Nieuport",
        "Ghent",
        "Antwerp",
        "Brussels",
        "Namur",
        "Liege",
        "Kehl",
        "Gibraltar",
        "Valencia",
        "Barcelona",
        "Milan",
        "Cagliari",
        "Ulm",
        "Ingolstadt",
        "Buda",
    },
}
KINDS = {"fa": "field_army", "sa": "siege_army", "fc": "free_corps", "g": "garrison"}


def printed(counts: dict[str, int]) -> Counter:
    out: Counter = Counter()
    for code, n in counts.items():
        vet = code[0] == "v"
        kind = KINDS[code.lstrip("vr") if code != "g" else "g"]
        out[(kind, vet)] += n
    return out


@pytest.mark.parametrize("name", sorted(TROOPS))
def test_troops_as_printed(name: str) -> None:
    """Rules: MARL-S1-04, MARL-S1-08, MARL-S1-12, MARL-S2-04, MARL-S2-08, MARL-S2-12, MARL-S3-04,
    MARL-S3-08, MARL-S3-12
    """
    units = scenario(name)["entities"]["unit"]
    held: dict[tuple, Counter] = {}
    for uid, u in units.items():
        if u["kind"] in ("leader", *FLEETS):
            continue
        key = (u.get("owner"), u["nation"])
        assert key in TROOPS[name], (
            f"{name}: {uid} is of a side and state the set-up does not print"
        )
        held.setdefault(key, Counter())[(u["kind"], u["veteran"])] += 1
        places = TROOPS[name][key][1]
        h = hex_of(u["at"])
        assert u["at"] in places or h.get("name") in places or h.get("nation") in places, (
            f"{name}: {uid} stands at {u['at']} ({h.get('name')}, {h.get('nation')}), "
            f"outside {sorted(places)}"
        )
    for key, (counts, _) in TROOPS[name].items():
        assert held.get(key, Counter()) == printed(counts), f"{name}: {key}"


@pytest.mark.parametrize("name", sorted(FLEETS_PRINTED))
def test_fleets_as_printed(name: str) -> None:
    """Each printed fleet, of its type and side, in a port its line allows (21.10: a port has
    the anchor symbol); each admiral on the map with a fleet of his state.

    Rules: MARL-S1-04, MARL-S1-08, MARL-S1-12, MARL-S2-04, MARL-S2-08, MARL-S2-12, MARL-S3-04,
    MARL-S3-08, MARL-S3-12, MARL-21.1-01
    """
    units = scenario(name)["entities"]["unit"]
    held: dict[tuple, Counter] = {}
    for uid, u in units.items():
        if u["kind"] not in FLEETS:
            continue
        key = (u.get("owner"), u["nation"])
        assert key in FLEETS_PRINTED[name], f"{name}: {uid} is a fleet the set-up does not print"
        code = ("v" if u["veteran"] else "r") + ("bf" if u["kind"] == "battle_fleet" else "ff")
        held.setdefault(key, Counter())[code] += 1
        h = hex_of(u["at"])
        places = FLEETS_PRINTED[name][key][1]
        assert h.get("port"), f"{name}: {uid} stands at {u['at']}, not a port"
        assert h.get("name") in places or h.get("nation") in places, (
            f"{name}: {uid} stands at {u['at']} ({h.get('name')}), outside {sorted(places)}"
        )
    for key, (counts, _) in FLEETS_PRINTED[name].items():
        assert held.get(key, Counter()) == Counter(counts), f"{name}: {key}"
    admirals = {k: u for k, u in units.items() if u.get("leads") == "admiral"}
    assert set(admirals) == ADMIRALS[name]
    for k, u in admirals.items():
        mates = [
            v
            for v in units.values()
            if v["kind"] in FLEETS and v.get("at") == u["at"] and v["nation"] == u["nation"]
        ]
        assert mates, f"{name}: {k} is not with a fleet of his state"


@pytest.mark.parametrize("name", sorted(LEADERS))
def test_leaders_deployed_and_available(name: str) -> None:
    """Rules: MARL-S1-05, MARL-S1-09, MARL-S1-13, MARL-S2-05, MARL-S2-09, MARL-S2-13, MARL-S3-05,
    MARL-S3-09, MARL-S3-13
    """
    units = scenario(name)["entities"]["unit"]
    leaders = {
        k: u for k, u in units.items() if u["kind"] == "leader" and u.get("leads") != "admiral"
    }
    on, off = LEADERS[name]
    assert {k for k, u in leaders.items() if u.get("at")} == on
    assert {k for k, u in leaders.items() if not u.get("at")} == off
    assert all(u.get("owner") for u in leaders.values()), "neutrals have no leaders (3.5)"
    if name == "ne_plus_ultra":
        assert "vauban" not in units  # 5.5: he died in 1707


@pytest.mark.parametrize("name", sorted(CONTROL))
def test_initial_control(name: str) -> None:
    """Rules: MARL-S1-03, MARL-S1-06, MARL-S1-10, MARL-S2-03, MARL-S2-06, MARL-S2-10, MARL-S3-03,
    MARL-S3-06, MARL-S3-10
    """
    nations = scenario(name)["entities"]["nation"]
    bourbon, allied, neutral = CONTROL[name]
    assert {k for k, n in nations.items() if n.get("control") == B} == bourbon
    assert {k for k, n in nations.items() if n.get("control") == GA} == allied
    assert neutral <= {k for k, n in nations.items() if not n.get("control")}


@pytest.mark.parametrize("name", sorted(START))
def test_start_values(name: str) -> None:
    """Rules: MARL-S1-02, MARL-S1-07, MARL-S1-11, MARL-S2-01, MARL-S2-02, MARL-S2-07, MARL-S2-11,
    MARL-S3-01, MARL-S3-02, MARL-S3-07, MARL-S3-11
    """
    s = scenario(name)
    bopi, year, turns, btp, gtp, bm, gm = START[name]
    assert (s["globals"]["bopi"], s["globals"]["year"], s["globals"]["last_turn"]) == (
        bopi,
        year,
        turns,
    )
    # the treasury is kept in half points (scale 2: 10.12's halves)
    assert s["players"][B] == {"treasury": 2 * btp, "start_markers": bm}
    assert s["players"][GA] == {"treasury": 2 * gtp, "start_markers": gm}


@pytest.mark.parametrize("name", sorted(DESTROYED))
def test_garrison_destroyed_markers(name: str) -> None:
    """Rules: MARL-S1-14, MARL-S2-14, MARL-S3-14, MARL-S3-17"""
    hexes = scenario(name)["entities"]["hex"]
    marked = {hex_of(h).get("name") for h, v in hexes.items() if v.get("garrison_destroyed")}
    assert marked == DESTROYED[name]
    assert not any(v.get("besieged") for v in hexes.values())  # 7.1 Siege: none
    for h in hexes:
        assert hex_of(h).get("terrain") == "fortress"


@pytest.mark.parametrize(
    ("name", "base", "turns"),
    [
        ("grand_design_1701", "opening_guns", 14),
        ("grand_design_1704", "blenheim", 11),
        ("grand_design_1709", "ne_plus_ultra", 6),
    ],
)
def test_grand_design_plays_a_scenario_to_1714(name: str, base: str, turns: int) -> None:
    """The start year's set-up, the last turn 1714.

    Rules: MARL-S4-02, MARL-S4-03
    """
    s = scenario(name)
    assert s["base"] == base
    assert set(s) <= {
        "scenario",
        "title",
        "text",
        "doc",
        "base",
        "rules",
        "globals",
        "assumed",
        "entities",
    }
    assert s["globals"] == {"last_turn": turns}
    assert START[base][1] + turns - 1 == 1714
    # besides the base's set-up, only the optional rebel counters (31.0): off the map,
    # owned by nobody
    assert set(s.get("entities", {})) <= {"unit"}
    for u in s.get("entities", {}).get("unit", {}).values():
        assert u["kind"] == "rebel" and "at" not in u and "owner" not in u


@pytest.mark.parametrize("name", ["grand_design_1701", "grand_design_1704", "grand_design_1709"])
def test_grand_design_rebel_counters(name: str) -> None:
    """The assumed rebel counters of optional rule 31.0: each rebels in one state, marked assumed.

    Rules: MARL-31.1-01
    """
    s = scenario(name)
    rebels = s["entities"]["unit"]
    assert {u["nation"] for u in rebels.values()} == {"hungary", "france", "bavaria"}
    assert "31.0" in s["assumed"]["entities.unit.kind"]
