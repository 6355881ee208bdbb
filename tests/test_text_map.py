"""The terminal's text map of a hex board (``map``, issue 23 item 5): the hexes near the seat's
forces drawn as offset columns with a legend, the whole board or the hexes around one hex on
request, within the screen's width, and only from the seat's view: on the marches fixture
(every unit seen) and on mistford (the same game with its units in the fog of war)."""

from __future__ import annotations

import io
import re

import pytest
from compile_helpers import fixture_game
from fixtures.marches import SPEC as MARCHES
from rulecraft.compiler import board as grid
from rulecraft.runtime import Game
from rulecraft.runtime.tools import text_map
from rulecraft.runtime.tools.terminal import play

MIST = fixture_game("mistford")[1].SPECS["crossing"]
WEST, EAST = 0, 1


def game(spec) -> Game:
    return Game.new(spec, "crossing", 1)


def grid_lines(lines: list[str]) -> list[str]:
    """The lines of the grid: after the heading, before what is off the map and the legend."""
    end = next(k for k, line in enumerate(lines) if line.startswith(("  Reserve", "  Legend")))
    return lines[1:end]


def drawn(lines: list[str]) -> set[str]:
    """The numbers of the hexes a map draws."""
    return set(re.findall(r"\b(\d{4})\b", "\n".join(grid_lines(lines))))


def cell(lines: list[str], number: str) -> str:
    """What a map shows standing in hex ``number`` (after its number and terrain mark)."""
    for line in grid_lines(lines):
        found = re.search(rf"\b{number}\b", line)
        if found:
            return line[found.start() + 8 : found.start() + text_map.CELL].strip()
    raise AssertionError(f"hex {number} not drawn")


def within(numbers: list[str], steps: int) -> set[str]:
    out = set()
    for c in range(1, 7):
        for r in range(1, 6):
            a = grid.axial(c, r, "even")
            if any(
                grid.distance(a, grid.axial(int(n[:2]), int(n[2:]), "even")) <= steps
                for n in numbers
            ):
                out.add(f"{c:02d}{r:02d}")
    return out


def map_of(spec, g: Game, player: int, which: str = "", width: int = 80) -> list[str]:
    return text_map.map_lines(spec, g.view_state(player), width, which)


# -- what the map draws


def test_map_draws_the_hexes_near_the_seats_forces_and_what_stands_there():
    lines = map_of(MARCHES, game(MARCHES), WEST)
    text = "\n".join(lines)
    # West stands at 0203 and 0104 (and in the reserve box, off the map)
    assert drawn(lines) == within(["0203", "0104"], text_map.NEAR)
    assert cell(lines, "0203") == "A" and cell(lines, "0104") == "B"
    assert cell(lines, "0303") == ""
    assert "0203 To A" in text and "0102 Wo" in text  # terrain marks
    assert "Reserve (off the map): C c" in text
    assert "A West foot (yours)" in text and "c East guard (East)" in text
    assert "To town" in text and "0203 Hexham" in text
    assert "clear (no mark)" in text and "0303 Cl" not in text
    # the river and the ford between hexes of the region; 0301/0401 is outside it
    assert "ford 0303/0403" in text and "river 0302/0402 0303/0402" in text
    assert "0301/0401" not in text
    # East's forces at 0503 and 0602 are beyond the region: not in the legend
    assert "East foot" not in text


def test_lower_columns_stand_one_line_lower():
    lines = map_of(MARCHES, game(MARCHES), WEST, "all")
    row_of = {
        m.group(1): k
        for k, line in enumerate(grid_lines(lines))
        for m in re.finditer(r"\b(\d{4})\b", line)
    }
    assert row_of["0201"] == row_of["0101"] + 1  # even columns are shifted: half a hex lower
    assert row_of["0301"] == row_of["0101"]
    assert row_of["0102"] == row_of["0101"] + 2


def test_map_all_and_map_hex_and_a_bad_hex():
    g = game(MARCHES)
    assert len(drawn(map_of(MARCHES, g, WEST, "all"))) == 30
    for which in ("0503", "h0503", "ayeford"):
        lines = map_of(MARCHES, g, WEST, which)
        assert drawn(lines) == within(["0503"], text_map.NEAR)
        assert cell(lines, "0503") == "a" and cell(lines, "0602") == "b"
    assert "within 2 of 0503 Ayeford" in map_of(MARCHES, g, WEST, "0503")[0]
    said = map_of(MARCHES, g, WEST, "0909")
    assert len(said) == 1 and "No hex '0909'" in said[0]


@pytest.mark.parametrize("width", [40, 52, 80, 120])
def test_the_map_fits_the_screen_in_bands_of_columns(width):
    lines = map_of(MARCHES, game(MARCHES), EAST, "all", width)
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    assert len(drawn(lines)) == 30
    # one band of the six columns, or (narrow) bands as even as can be, each headed
    bands = [line.strip() for line in grid_lines(lines) if "columns" in line]
    assert bands == {
        40: ["columns 01-03:", "columns 04-06:"],
        52: ["columns 01-03:", "columns 04-06:"],
    }.get(width, [])


def test_a_game_without_a_board_has_no_map():
    from fixtures.toy import SPEC as TOY

    assert not text_map.has_map(TOY)
    g = Game.new(TOY, "duel", 1)
    assert "no hex board" in text_map.map_lines(TOY, g.view_state(0))[0]


# -- fog of war: only the view


def test_forces_in_the_fog_show_only_as_a_force_of_unknown_size():
    g = game(MIST)
    lines = map_of(MIST, g, WEST, "all")
    text = "\n".join(lines)
    assert cell(lines, "0503") == "?E" and cell(lines, "0602") == "?E"
    assert "?E East force of unknown size" in text
    assert "East foot" not in text and "East horse" not in text and "East guard" not in text
    assert "Reserve (off the map): C ?E" in text
    # one's own forces are named
    assert cell(lines, "0203") == "A" and "A West foot (yours)" in text


def swapped(g: Game, a: str, b: str) -> Game:
    """``g`` with units ``a`` and ``b`` standing in each other's places."""
    other = g.clone()
    slot = MIST.layout.by_path["e.unit.location"]
    i, j = (slot.offset + MIST.ids["unit"].index(u) for u in (a, b))
    other.raw[i], other.raw[j] = other.raw[j], other.raw[i]
    return other


@pytest.mark.parametrize("which", ["", "all", "0503", "0602"])
def test_twin_games_differing_in_hidden_units_give_the_same_map(which):
    # East's foot and horse trade places: hidden from West, plain to East
    g = game(MIST)
    twin = swapped(g, "e_foot", "e_horse")
    assert map_of(MIST, g, WEST, which) == map_of(MIST, twin, WEST, which)
    assert map_of(MIST, g, EAST, "all") != map_of(MIST, twin, EAST, "all")


def test_a_revealed_unit_is_named_on_the_map():
    g = game(MIST)
    seen = MIST.layout.by_path["e.unit.seen"]
    g.raw[seen.offset + MIST.ids["unit"].index("e_horse")] = 1 << WEST
    lines = map_of(MIST, g, WEST, "0602")
    text = "\n".join(lines)
    assert cell(lines, "0602") == "a" and "a East horse (East)" in text
    assert cell(lines, "0503") == "?E"


# -- at the prompt


def test_map_at_the_prompt_and_in_help():
    out = io.StringIO()
    script = "help\nmap\nmap all\nmap Ayeford\n"
    play(MIST, "crossing", ["human", "random"], 1, input=io.StringIO(script), output=out)
    text = out.getvalue()
    assert "  map    the hexes near your forces (map all, map HEX: around a hex)\n  undo" in text
    assert "Map: the hexes within 2 of your forces" in text
    assert "Map: the whole board" in text and "Map: the hexes within 2 of 0503 Ayeford" in text
    assert "East force of unknown size" in text and "East foot" not in text


def test_a_crowded_hex_shows_what_fits_and_how_many_more():
    g = game(MARCHES)
    slot = MARCHES.layout.by_path["e.unit.location"]
    for i in range(slot.count):
        g.raw[slot.offset + i] = MARCHES.ids["hex"].index("h0203")
    lines = map_of(MARCHES, g, WEST, "0203")
    assert cell(lines, "0203") == "A B +4"
    assert "c East guard (East)" in "\n".join(lines)  # the six all in the legend


# -- the same board and pieces as data, for the play page's map (rulecraft serve)


def test_map_data_gives_every_hex_its_place_terrain_and_the_hexsides():
    data = text_map.map_data(MARCHES)
    assert data is not None and data["shifted"] == "even"
    numbers = {h[4]: h for h in data["hexes"]}
    assert set(numbers) == {f"{c:02d}{r:02d}" for c in range(1, 7) for r in range(1, 6)}
    rec, column, row, terrain, _number, _name = numbers["0402"]
    assert (column, row) == (4, 2) and MARCHES.ids["hex"][rec] == "h0402"
    assert all(h[3] == -1 or 0 <= h[3] < len(data["terrain"]) for h in data["hexes"])
    ids = MARCHES.ids["hex"]
    river = {(ids[a][1:], ids[b][1:]) for a, b in data["sides"]["river"]}
    assert ("0301", "0401") in river and ("0302", "0402") in river
    assert [name for _rec, name in data["boxes"]] == ["Reserve"]
    from fixtures.toy import SPEC as TOY

    assert text_map.map_data(TOY) is None
    assert text_map.map_pieces(TOY, Game.new(TOY, "duel", 1).view_state(0)) is None


def pieces(spec, g: Game, player) -> dict[str, list[list[str]]]:
    ids = spec.ids["hex"]
    return {ids[h][1:]: units for h, units in text_map.map_pieces(spec, g.view_state(player))}


def test_map_pieces_show_the_fog_as_the_view_does():
    g = game(MIST)
    west = pieces(MIST, g, WEST)
    assert west["0503"] == [["East force of unknown size", "fog"]]
    assert ["West foot", "own"] in west["0203"]
    assert "East foot" not in repr(west) and "East horse" not in repr(west)
    east = pieces(MIST, g, EAST)
    assert any(kind == "own" and name.startswith("East") for v in east.values() for name, kind in v)
    # twins that differ in what West may not see: the same pieces for West, not for East
    twin = swapped(g, "e_foot", "e_horse")
    assert pieces(MIST, g, WEST) == pieces(MIST, twin, WEST)
    assert pieces(MIST, g, EAST) != pieces(MIST, twin, EAST)
    # every unit seen (marches): the other side named, with whose it is
    seen = pieces(MARCHES, game(MARCHES), WEST)
    assert any(kind == "other" and "(East)" in name for v in seen.values() for name, kind in v)
