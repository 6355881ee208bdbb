"""Marlborough's scenario and map data read back from the compiled scenarios: the two sides
(1.0), the states' territories and starting occupations (2.14) and the terrain of the
Terrain Effects Chart (2.12), against the rulebook as printed."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
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
