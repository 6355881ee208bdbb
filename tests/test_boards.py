"""Boards: a hex grid declared as data (board.yaml), on an invented game
(tests/fixtures/games/marches/: 6x5 hexes, a river with one ford, two forces a side and a
reserve box). Adjacency of shifted columns, distance, march costs by terrain and hexside,
zones of control, supply traced over two hexes, the errors a designer sees, random games."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from compile_helpers import compile_errors, compile_into, edit, import_generated, line_col
from fixtures.marches import SPEC
from forms_helpers import lockstep
from rulecraft.compiler import board as grid
from rulecraft.runtime import Game
from rulecraft.runtime.machine import RulesError
from rulecraft.runtime.prelude import distance, path_cost_by, reach
from rulecraft.runtime.tools.agents import RandomAgent

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "games" / "marches"
HEXES = SPEC.ids["hex"]
UNITS = SPEC.ids["unit"]
E = SPEC.engine
D = E.d  # the static data, also what the rules do not read


def h(number: str) -> int:
    return HEXES.index("h" + number)


def numbers(indices) -> list[str]:
    return sorted(HEXES[i][1:] if HEXES[i].startswith("h") else HEXES[i] for i in indices)


def around(column: int, row: int, shifted: str) -> list[str]:
    return sorted(f"{c:02d}{r:02d}" for c, r in grid.neighbours(column, row, shifted))


# -- adjacency and distance


def test_neighbours_of_lower_and_upper_columns_for_both_shifts():
    # even columns lower: 0203 touches rows 3 and 4 of columns 1 and 3; 0303 rows 2 and 3
    assert around(2, 3, "even") == ["0103", "0104", "0202", "0204", "0303", "0304"]
    assert around(3, 3, "even") == ["0202", "0203", "0302", "0304", "0402", "0403"]
    # odd columns lower: the other way round
    assert around(3, 3, "odd") == ["0203", "0204", "0302", "0304", "0403", "0404"]
    assert around(2, 3, "odd") == ["0102", "0103", "0202", "0204", "0302", "0303"]


@pytest.mark.parametrize("shifted", ["even", "odd"])
def test_distance_is_the_fewest_steps_and_adjacency_is_symmetric(shifted):
    cells = [(c, r) for c in range(1, 9) for r in range(1, 8)]
    for a in cells:
        for b in grid.neighbours(*a, shifted):
            assert a in grid.neighbours(*b, shifted)
    for start in [(1, 1), (4, 4), (7, 2)]:
        steps = {start: 0}
        todo = [start]
        while todo:
            a = todo.pop(0)
            for b in grid.neighbours(*a, shifted):
                if b in cells and b not in steps:
                    steps[b] = steps[a] + 1
                    todo.append(b)
        for b, n in steps.items():
            assert grid.distance(grid.axial(*start, shifted), grid.axial(*b, shifted)) == n


def test_the_compiled_board_gives_every_hex_its_neighbours_and_the_box_none():
    adj = E.s_e_hex__adjacent
    assert numbers(adj[h("0203")]) == ["0103", "0104", "0202", "0204", "0303", "0304"]
    assert numbers(adj[h("0101")]) == ["0102", "0201"]  # a corner
    assert numbers(adj[h("0605")]) == ["0505", "0604"]  # col 6 lower: 0505 only on the left
    box = HEXES.index("reserve")
    assert adj[box] == ()
    assert D["s_e_hex__on_map"][box] is False and D["s_e_hex__on_map"][h("0101")] is True
    assert D["s_e_hex__terrain"][h("0402")] == "hills" and D["s_e_hex__terrain"][box] is None
    assert SPEC.names["hex"][h("0203")] == "Hexham" and SPEC.names["hex"][h("0101")] == "0101"
    assert (
        D["s_e_hex__objective"][h("0503")] is True and D["s_e_hex__objective"][h("0101")] is False
    )


def place(g: Game, **where: str | None) -> None:
    """Put units on hexes (``w_foot="0303"``), in the reserve or off the board (None)."""
    for unit, at in where.items():
        i = None if at is None else HEXES.index(at) if at == "reserve" else h(at)
        g.state["e"]["unit"][UNITS.index(unit)]["location"] = i


def quiet_game() -> Game:
    """A game with every unit in the reserve (no zones of control)."""
    g = Game.new(SPEC, None, 1)
    place(g, **{u: "reserve" for u in UNITS})
    return g


def test_distance_in_the_rules_counts_hexes_and_refuses_a_box():
    g = quiet_game()
    place(g, w_foot="0503")
    assert E.f_from_home(g.raw, UNITS.index("w_foot")) == 3  # 0203 0303 0403 0503
    place(g, w_foot="0201")
    assert E.f_from_home(g.raw, UNITS.index("w_foot")) == 2
    with pytest.raises(RulesError, match="box off the map"):
        distance(E.bd_axial, h("0101"), HEXES.index("reserve"))


# -- costs, zones of control, supply


def test_march_costs_follow_terrain_and_the_river_is_crossed_only_at_the_ford():
    adj, steps = E.s_e_hex__adjacent, E.bd_cost__march
    on_map = set(range(len(HEXES))) - {HEXES.index("reserve")}
    # 0203 -> 0303 (clear 1) -> 0403 (clear 1 + ford 1) -> 0503 (town 1)
    assert path_cost_by(adj, steps, h("0203"), h("0503"), set(), on_map) == 4
    # no wading: 0302 -> 0402 is a river hexside; round by the ford into the hills (3)
    assert path_cost_by(adj, steps, h("0302"), h("0402"), set(), on_map) == 6
    assert path_cost_by(adj, None, h("0302"), h("0402"), set(), on_map) == 1  # plain steps
    assert (h("0402"), 3) not in steps[h("0302")]
    assert (h("0403"), 2) in steps[h("0303")]
    assert D["bd_side__river"][h("0302")] == (h("0401"), h("0402"))
    assert D["bd_side__ford"][h("0403")] == (h("0303"),)


def test_a_force_stops_on_entering_an_enemy_zone_of_control():
    horse = UNITS.index("w_horse")
    g = quiet_game()
    place(g, w_horse="0104")
    assert "0403" in numbers(E.f_moves(g.raw, horse))  # 0203 0303, the ford: 1 + 1 + 2
    place(g, e_foot="0304")  # its zone: 0303 0305 0203 0204, not across the river
    assert numbers(E.f_zoc(g.raw, 0)) == ["0203", "0204", "0303", "0305"]
    moves = numbers(E.f_moves(g.raw, horse))
    assert "0303" in moves and "0203" in moves  # entered, and there it stops
    assert "0403" not in moves and "0304" not in moves


def test_a_way_never_steps_from_one_zone_of_control_straight_into_another():
    adj = E.s_e_hex__adjacent
    everywhere = set(range(len(HEXES))) - {h("0304")}  # the enemy's own hex
    zoc = {h("0203"), h("0204"), h("0303"), h("0305")}
    near = reach(adj, None, h("0203"), everywhere, 1, zoc)
    assert numbers(near) == ["0103", "0104", "0202", "0203"]
    # from a hex outside the zone the next zone hex may be entered: 0203 0104 0204
    assert "0204" in numbers(reach(adj, None, h("0203"), everywhere, 2, zoc))


def test_supply_is_traced_over_two_hexes_and_not_into_an_enemy_zone_of_control():
    foot = UNITS.index("w_foot")
    g = quiet_game()
    place(g, w_foot="0201")
    assert E.f_supplied(g.raw, foot) is True  # 0202, then home 0203
    place(g, w_foot="0101")
    assert E.f_supplied(g.raw, foot) is False  # three hexes from home
    place(g, w_foot="0201", e_horse="0302")  # its zone covers 0202, the only way home
    assert E.f_supplied(g.raw, foot) is False
    place(g, w_horse="0202")  # a friendly unit there opens the line again
    assert E.f_supplied(g.raw, foot) is True


def test_random_games_end_and_march_across_the_board():
    reasons = set()
    for seed in range(20):
        g = Game.new(SPEC, None, seed)
        agents = [RandomAgent(seed * 7 + i) for i in range(2)]
        while not g.finished:
            d = g.pending()[0]
            g.apply(d.player, agents[d.player].choose(None, d, g.spec))
        reasons.add(g.result["reason"])
        assert g.turn <= 8
    assert "time runs out" in reasons
    assert any("marches" in line for line in g.log_for(None))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_both_forms_of_the_engine_play_the_same_game(seed):
    rec = lockstep(SPEC, seed)
    assert rec.decisions


# -- errors a designer sees


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "rules" / "marches")
    (tmp_path / "generated").mkdir()
    return tmp_path


def one_error(root: Path, rel: str, needle: str):
    errors = compile_errors(root)
    assert len(errors) == 1, [str(e) for e in errors]
    e = errors[0]
    assert (e.pos.file, e.pos.line, e.pos.col) == (
        f"rules/marches/{rel}",
        *line_col(root, rel, needle, game="marches"),
    )
    return e


@pytest.mark.parametrize(
    ("old", "new", "needle", "says"),
    [
        ('"0102": woods', '"012": woods', '"012"', "four digits"),
        ('"0102": woods', '"0709": woods', '"0709"', "hex 0709 is off the board"),
        ('"0402": hills', '"0402": swamp', "swamp", "unknown terrain 'swamp'"),
        ('"0305/0405": river', '"0305/0406": river', '"0305/0406"', "off the board"),
        ('"0305/0405": river', '"0303/0305": river', '"0303/0305"', "do not touch"),
        ('"0305/0405": river', '"0305/0405": rivr', "rivr", "unknown hexside feature 'rivr'"),
        ("hills: 3, town", "hill: 3, town", "hill: 3", "unknown terrain 'hill'"),
        ("borders: county", "borders: shire", "shire  ", "'shire' is not an attribute of 'hex'"),
    ],
)
def test_board_errors_name_their_place(project, old, new, needle, says):
    edit(project, "board.yaml", old, new, game="marches")
    errors = compile_errors(project)
    assert errors, "no error"
    hit = [e for e in errors if says in e.message]
    assert hit, [str(e) for e in errors]
    e = hit[0]
    line, col = line_col(project, "board.yaml", needle, game="marches")
    assert (e.pos.file, e.pos.line, e.pos.col) == ("rules/marches/board.yaml", line, col)


@pytest.mark.parametrize(
    ("old", "new", "needle", "says"),
    [
        ('"river")]) > 0]', '"rivr")]) > 0]', '"rivr"', "unknown hexside feature"),
        ('costs="march", stop', 'costs="marsh", stop', '"marsh"', "unknown cost scheme 'marsh'"),
        (
            "return distance(at, u.owner.home)",
            "return distance(at, u)",
            "u)",
            "takes hexes of the board",
        ),
    ],
)
def test_board_builtins_are_checked(project, old, new, needle, says):
    edit(project, "rules.yaml", old, new, game="marches")
    e = one_error(project, "rules.yaml", needle)
    assert says in e.message


def test_the_board_gives_its_attributes_and_refuses_them_declared_again(project):
    edit(
        project,
        "game.yaml",
        "objective: {type: bool}",
        "objective: {type: bool}\n        row: {type: int}",
        game="marches",
    )
    e = one_error(project, "game.yaml", "row: {type: int}")
    assert "which its board gives" in e.message


def test_the_terminal_lists_hexes_by_terrain_without_the_grid():
    from rulecraft.runtime.tools.terminal import render_view

    text = render_view(Game.new(SPEC, None, 1).view(0), SPEC)
    assert "terrain" in text and "Hexham   town" in text
    assert "adjacent" not in text and "on map" not in text


# -- the map on the sheet


def test_the_sheet_draws_the_map_with_every_hex_its_features_and_assumed_marks():
    from rulecraft.compiler.publish.sheets import render_html

    html = render_html("marches", rules_root=FIXTURE.parent)
    start, end = html.index("<svg"), html.index("</svg>")
    svg = html[start:end]
    for c in range(1, 7):
        for r in range(1, 6):
            assert f'id="hex-{c:02d}{r:02d}"' in svg
            assert f">{c:02d}{r:02d}</text>" in svg  # the number is printed
    assert svg.count('class="side side-river"') == 8 and svg.count("side-ford") == 1
    assert svg.count('class="border"') == 6  # around Ayeford, the one hex of Ayeshire
    assert "Hexham</text>" in svg
    assert "Ayeford<tspan" in svg and "†2</tspan>" in svg  # an assumed hex, note 2
    assert 'fill="#cfa86e"' in svg  # hills coloured as the board says
    assert "Hills<span" in html and "&dagger;1" in html  # an assumed terrain in the key
    assert "The ford at Hexham</span>: hex 0503 Ayeford &mdash; invented: no rulebook" in html
    assert "Off the map: Reserve." in html
    assert "<td>River hexside</td><td" in html and "no crossing" in html
    assert "Hexham (0203)" in html  # set-up tables name hexes as the board does


def test_a_box_off_the_map_touches_the_hexes_it_links_at_its_terrain_cost(project):
    edit(
        project,
        "board.yaml",
        "    reserve: {name: Reserve}",
        "    reserve: {name: Reserve}\n"
        '    ferry: {name: Ferry, terrain: woods, links: ["0101", "0605"]}',
        game="marches",
    )
    compile_into(project)
    spec = import_generated(project, "marches").SPECS["crossing"]
    hexes = spec.ids["hex"]
    adj, steps = spec.engine.s_e_hex__adjacent, spec.engine.bd_cost__march
    ferry, a, b = hexes.index("ferry"), hexes.index("h0101"), hexes.index("h0605")
    assert sorted(adj[ferry]) == [a, b] and ferry in adj[a] and ferry in adj[b]
    assert (ferry, 2) in steps[a]  # woods
    assert path_cost_by(adj, steps, a, b, set(), set(range(len(hexes)))) == 3


def test_a_large_map_is_printed_in_parts_that_fit_a_page(project):
    from rulecraft.compiler.publish.sheets import render_html

    edit(project, "board.yaml", "columns: [1, 6]", "columns: [1, 20]", game="marches")
    edit(project, "board.yaml", "rows: [1, 5]", "rows: [1, 15]", game="marches")
    html = render_html("marches", rules_root=project / "rules")
    captions = [
        "columns 01-12, rows 01-12",
        "columns 13-20, rows 01-12",
        "columns 01-12, rows 13-15",
        "columns 13-20, rows 13-15",
    ]
    at = [html.index(f"The ford at Hexham: {c}</p>") for c in captions]
    assert at == sorted(at) and html.count("<svg") == 4
    for c in range(1, 21):
        for r in range(1, 16):
            assert html.count(f'id="hex-{c:02d}{r:02d}"') == 1
    assert html.count('class="side side-river"') == 8  # each hexside drawn once
