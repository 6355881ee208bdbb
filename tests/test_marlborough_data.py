"""Marlborough's scenario and map data read back from the compiled scenarios: the two sides
(1.0), the states' territories and starting occupations (2.14), the terrain of the
Terrain Effects Chart (2.12), the unit colours (2.31 and the errata) and the Grand Design's
span (Scenario 4), against the rulebook as printed."""

from __future__ import annotations

import re
from pathlib import Path

import compile_helpers
import pytest
import yaml
from compile_helpers import game_tables, need_shared
from rulecraft.runtime import Game, resolve

ROOT = Path(__file__).resolve().parent.parent
BOURBON, GRAND_ALLIANCE = 0, 1
SCENARIOS = ("blenheim", "opening_guns", "ne_plus_ultra")


def _game(name: str) -> Game:
    spec, scenario = resolve(f"marlborough/{name}")
    return Game.new(spec, scenario, 1)


def _nations(g: Game) -> dict[str, dict]:
    return {n["id"]: n for n in g.state["e"]["nation"]}


def _units_in(g: Game, state: str) -> list[dict]:
    """The units on the map in ``state``'s hexes, each with its nation's id."""
    ids = [n["id"] for n in g.state["e"]["nation"]]
    hexes = g.state["e"]["hex"]
    return [
        {**u, "nation_id": ids[u["nation"]]}
        for u in g.state["e"]["unit"]
        if u["at"] is not None
        and hexes[u["at"]]["nation"] is not None
        and ids[hexes[u["at"]]["nation"]] == state
    ]


@pytest.mark.parametrize("name", SCENARIOS)
def test_two_players_bourbon_coalition_and_grand_alliance_1_0(name: str) -> None:
    """1.0: a two-player game; one player is the Bourbon coalition (France and its allies),
    the other the Grand Alliance, led by England and Austria.
    Rules: MARL-1.0-01"""
    g = _game(name)
    assert [p["id"] for p in g.state["p"]] == ["bourbon", "grand_alliance"]
    nations = _nations(g)
    assert nations["france"]["control"] == BOURBON
    assert nations["austria"]["control"] == GRAND_ALLIANCE
    assert nations["england"]["control"] == GRAND_ALLIANCE


def test_hungary_and_ireland_start_occupied_2_14() -> None:
    """2.14: Hungary is technically independent but begins several scenarios under Grand
    Alliance control (the Opening Guns, whose Austrians may deploy in Austria and/or Hungary;
    in the others Rakoczy's rising holds it for the Bourbons), every unit in it the Grand
    Alliance's; Ireland begins occupied by English units.
    Rules: MARL-2.14-01"""
    g = _game("opening_guns")
    assert _nations(g)["hungary"]["control"] == GRAND_ALLIANCE
    inside = _units_in(g, "hungary")
    assert inside and all(u["owner"] == GRAND_ALLIANCE for u in inside)
    for name in SCENARIOS:
        g = _game(name)
        assert _nations(g)["ireland"]["control"] == GRAND_ALLIANCE, name
        assert any(u["nation_id"] == "england" for u in _units_in(g, "ireland")), name


def test_terrain_types_of_the_terrain_effects_chart_2_12() -> None:
    """2.12: the terrain effects are summarised on the Terrain Effects Chart: every hex of
    the map has one of its terrain types (clear, mountains, city, fortress, all-sea), and
    since the chart is not printed its effects are marked assumed in the board data.
    Rules: MARL-2.12-01"""
    g = _game("blenheim")
    terrains = {h["terrain"] for h in g.state["e"]["hex"] if h["on_map"]}
    assert terrains == {"clear", "mountain", "city", "fortress", "sea"}
    board = yaml.safe_load((ROOT / "rules" / "marlborough" / "board.yaml").read_text())["board"]
    assert set(board["terrain"]) == terrains
    assert "Terrain Effects Chart is not printed" in board["terrain"]["mountain"]["assumed"]


def test_states_not_contiguous_2_14() -> None:
    """2.14: the Minor German States include Salzburg and Lorraine, the Papal States Avignon,
    Prussia three hexes in western Germany, the United Provinces Maastricht and Venice the
    territory around Zara: each a hex of its state on the (assumed) map.
    Rules: MARL-2.14-02"""
    g = _game("blenheim")
    ids = [n["id"] for n in g.state["e"]["nation"]]
    state_of = {h["name"]: ids[h["nation"]] for h in g.state["e"]["hex"] if h["nation"] is not None}
    assert state_of["Salzburg"] == state_of["Lorraine"] == "german_states"
    assert state_of["Avignon"] == "papal_states"
    assert state_of["Maastricht"] == "united_provinces"
    assert state_of["Zara"] == "venice"
    prussia = [h for h in g.state["e"]["hex"] if h["nation"] == ids.index("prussia")]
    berlin = next(h for h in prussia if h["name"] == "Berlin")
    assert len([h for h in prussia if h["column"] < berlin["column"] - 6]) == 3


def _bullets(after: str, count: int, sep: str) -> dict[str, str]:
    """The ``count`` bullet lines ``• name<sep>colours`` after the line ``after`` in the book."""
    book = compile_helpers.SHARED / "rulebooks" / "marlborough.txt"
    lines = book.read_text(encoding="utf-8").splitlines()
    start = lines.index(after)
    items = [ln[2:] for ln in lines[start + 1 :] if ln.startswith("• ")][:count]
    return dict(tuple(x.strip() for x in item.split(sep, 1)) for item in items)


def test_unit_colours_2_31_as_corrected_by_the_errata() -> None:
    """2.31's unit colours, each row's "As printed" the book's, its "Colours" the errata's
    where they correct 2.31 (British, French, Prussian, Rebels), 2.31's elsewhere; the six
    nationalities with counters are states of the game.
    Rules: MARL-2.31-01, MARL-ERR-05"""
    need_shared()
    printed = _bullets("2.31 Unit Colors", 8, ":")
    errata = _bullets("Counters:", 4, "–")
    t = game_tables("marlborough")["unit_colours"]
    rows = {r.label: [c.printed_text for c in r.cells] for r in t.rows}
    assert list(rows) == list(printed)
    for name, (colours, as_printed) in rows.items():
        assert as_printed == printed[name]
        assert colours == errata.get(name, printed[name])
    assert set(errata) <= set(printed)
    nations = _nations(_game("blenheim"))
    assert {r.id for r in t.rows} - set(nations) == {"minor_powers", "rebels"}


@pytest.mark.parametrize("start", ["1701", "1704", "1709"])
def test_the_grand_design_is_scenario_4_played_to_1714(start: str) -> None:
    """Errata: the Grand Design is Scenario 4, The War of the Spanish Succession; it is
    played through 1714 (its 1.2), and the optional rules, suggested for it only, are off
    unless chosen.
    Rules: MARL-ERR-03, MARL-S4-02, MARL-OPT-01"""
    spec, scenario = resolve(f"marlborough/grand_design_{start}")
    assert spec.scenario_title.startswith("Scenario 4: The War of the Spanish Succession")
    g = Game.new(spec, scenario, 1)
    assert g.state["g"]["year"] == int(start)
    assert g.state["g"]["year"] + g.state["g"]["last_turn"] - 1 == 1714
    optional = [k for k in spec.constants if k.startswith("optional_")]
    assert len(optional) >= 8 and not any(spec.constants[k] for k in optional)  # 30-37, 21.21


def test_components_notes_quote_the_book_2_13_2_35() -> None:
    """2.13: army boxes and markers are an administrative convenience (the engine keeps a
    force as the units in a hex); the errata's Allied Army 2 and missing Army 4 box; 2.35: the
    State Control Chart's markers are each state's control, a player or none (neutral).
    Every quotation on the sheet's Components table is the book's.
    Rules: MARL-2.13-01, MARL-ERR-06, MARL-2.35-01"""
    need_shared()
    book = " ".join((compile_helpers.SHARED / "rulebooks" / "marlborough.txt").read_text().split())
    steps = game_tables("marlborough")["components"].steps
    quotes = [q for s in steps for q in re.findall(r'"([^"]+)"', s)]
    assert len(quotes) == 3 and all(q in book for q in quotes)
    assert steps[0].startswith("2.13") and "Allied Army 2" in steps[0]
    assert steps[1].startswith("2.35")
    control = [n["control"] for n in _game("blenheim").state["e"]["nation"]]
    assert set(control) == {BOURBON, GRAND_ALLIANCE, None}


def test_charts_not_printed_are_assumed_where_used() -> None:
    """Charts not in this text: the Random Events Table is assumed row by row (with the
    events 10.14, 6.4 item 3 and 25.3 say exist), the Terrain Effects Chart's costs and the
    State Control Chart's values in the board and scenario data.
    Rules: MARL-PA-01, MARL-10.14-01, MARL-6.4-04, MARL-25.3-01"""
    events = game_tables("marlborough")["random_events"]
    assert events.data_missing and all(r.status == "assumed" for r in events.rows)
    named = {r.cells[0].printed_text if r.cells else "" for r in events.rows} | {
        str(x) for x in events.results
    }
    assert {"Subsidies", "War Party", "New Leader", "Rebels"} <= named
    board = yaml.safe_load((ROOT / "rules" / "marlborough" / "board.yaml").read_text())["board"]
    assert "not printed" in board["costs"]["march"]["assumed"]
    scenario = yaml.safe_load((ROOT / "rules/marlborough/scenarios/blenheim.yaml").read_text())
    assert "State Control Chart is not printed" in scenario["assumed"]["entities.nation"]
