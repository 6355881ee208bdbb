"""Write rules/marlborough/board.yaml: Marlborough's map, which the rulebook does not print.

Usage (from the repository root)::

    python scripts/marlborough_board.py

This script is the one place where the map's assumptions live. The rulebook prints no map
(its last page: "Charts not in this text"): no hex grid, no terrain, no state borders, no hex
numbers but one (the errata's hex 5807). What it does print are names: the cities, fortresses
and ports of the scenarios' set-ups, the economic centers of the Treasury Chart (Amsterdam 12,
London 9, Venice 6, every other 3) and the states of the State Control Chart's rules. So:

- the grid is 60 columns by 40 rows, large enough to hold hex 5807 (column 58, row 07),
  columns shifted like most hex maps of the period (even columns half a hex lower);
- every named place stands where its longitude and latitude put it on that grid (1.5 columns
  per degree east of 10 W, 1.6 rows per degree south of 60 N), moved to the nearest free
  hex when two fall in one;
- every hex belongs to the state of the nearest place (named or an anchor of a state's
  territory), or is all-sea when a sea anchor is nearer: the borders are therefore the
  middle lines between places, not history's;
- a place named as a fortress in the set-ups (a garrison unit, an inherent garrison with a
  garrison destroyed marker, "any German fortress") is a fortress hex, every other named
  place a city; a capital is a major state's capital; mountains stand around the anchors of
  the Alps and the Pyrenees; the Rhine and the Danube run through river hexes;
- every port reaches the sea (21.10: a port is a coast hex): where the nearest-anchor rule
  leaves a port inland, next to neither the sea nor a port that reaches it, the unnamed land
  hexes on a way from it to the nearest all-sea hex become all-sea (a channel), so its fleets
  can reach open water (the rules let fleets pass through port hexes).

Run it again after changing the lists below; the output is the same for the same lists.
"""

from __future__ import annotations

import math
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "rules" / "marlborough" / "board.yaml"
COLUMNS, ROWS = (1, 60), (1, 40)

# name, state, longitude, latitude, terrain (city/fortress), economic TP (0: none),
# capital, port
PLACES = [
    ("Paris", "france", 2.35, 48.85, "city", 3, True, False),
    ("Versailles", "france", 1.6, 48.6, "city", 0, False, False),
    ("Strasbourg", "france", 7.75, 48.58, "fortress", 3, False, False),
    ("Lille", "france", 3.06, 50.63, "fortress", 3, False, False),
    ("Metz", "france", 6.18, 49.12, "fortress", 0, False, False),
    ("Lyon", "france", 4.83, 45.76, "city", 3, False, False),
    ("Toulon", "france", 5.93, 43.12, "fortress", 0, False, True),
    ("Brest", "france", -4.49, 48.39, "fortress", 0, False, True),
    ("Bordeaux", "france", -0.58, 44.84, "city", 3, False, True),
    ("Nieuport", "spanish_netherlands", 2.75, 51.13, "fortress", 0, False, True),
    ("Ghent", "spanish_netherlands", 3.72, 51.05, "fortress", 0, False, False),
    ("Brussels", "spanish_netherlands", 4.35, 50.85, "fortress", 3, False, False),
    ("Namur", "spanish_netherlands", 4.87, 50.47, "fortress", 0, False, False),
    ("Luxembourg", "spanish_netherlands", 6.13, 49.61, "fortress", 0, False, False),
    ("Antwerp", "spanish_netherlands", 4.4, 51.22, "fortress", 3, False, True),
    ("Liege", "spanish_netherlands", 5.57, 50.63, "fortress", 0, False, False),
    ("Amsterdam", "united_provinces", 4.9, 52.37, "city", 12, True, True),
    ("Rotterdam", "united_provinces", 4.48, 51.92, "city", 0, False, True),
    ("Maastricht", "united_provinces", 5.69, 50.85, "fortress", 0, False, False),
    ("Nijmegen", "united_provinces", 5.86, 51.84, "fortress", 0, False, False),
    ("Kehl", "german_states", 8.9, 48.6, "fortress", 0, False, False),
    ("Worms", "german_states", 8.36, 49.63, "fortress", 0, False, False),
    ("Koblenz", "german_states", 7.6, 50.36, "fortress", 0, False, False),
    ("Cologne", "german_states", 6.96, 50.94, "fortress", 3, False, False),
    ("Frankfurt", "german_states", 8.68, 50.11, "city", 3, False, False),
    ("Hanover", "german_states", 9.73, 52.37, "city", 3, False, False),
    ("Bremen", "german_states", 8.8, 53.08, "fortress", 0, False, True),
    ("Munich", "bavaria", 11.58, 48.14, "city", 3, True, False),
    ("Ulm", "bavaria", 9.99, 48.4, "fortress", 0, False, False),
    ("Ingolstadt", "bavaria", 11.43, 48.77, "fortress", 0, False, False),
    ("Blenheim", "bavaria", 10.64, 48.64, "city", 0, False, False),
    ("Vienna", "austria", 16.37, 48.21, "fortress", 3, True, False),
    ("Linz", "austria", 14.29, 48.3, "city", 0, False, False),
    ("Prague", "austria", 14.42, 50.08, "city", 3, False, False),
    ("Innsbruck", "austria", 11.4, 47.26, "fortress", 0, False, False),
    ("Graz", "austria", 15.44, 47.07, "fortress", 0, False, False),
    ("Buda", "hungary", 19.04, 47.5, "fortress", 3, False, False),
    ("Pressburg", "hungary", 17.1, 48.15, "city", 0, False, False),
    ("Berlin", "prussia", 13.4, 52.52, "city", 3, True, False),
    ("Magdeburg", "prussia", 11.63, 52.13, "fortress", 0, False, False),
    ("Konigsberg", "prussia", 20.5, 54.7, "fortress", 0, False, True),
    ("Leipzig", "saxony", 12.37, 51.34, "fortress", 0, False, False),
    ("Dresden", "saxony", 13.74, 51.05, "city", 3, True, False),
    ("Copenhagen", "denmark", 12.57, 55.68, "fortress", 3, True, True),
    ("Berne", "swiss_confederation", 7.45, 46.95, "fortress", 0, False, False),
    ("Zurich", "swiss_confederation", 8.54, 47.37, "fortress", 0, False, False),
    ("Venice", "venice", 12.33, 45.44, "city", 6, True, True),
    ("Genoa", "italian_states", 8.93, 44.41, "fortress", 3, False, True),
    ("Florence", "italian_states", 11.25, 43.77, "fortress", 3, False, False),
    ("Rome", "papal_states", 12.5, 41.9, "city", 3, False, False),
    ("Ravenna", "papal_states", 12.2, 44.42, "fortress", 0, False, True),
    ("Milan", "milan", 9.19, 45.46, "fortress", 3, False, False),
    ("Turin", "savoy", 7.69, 45.07, "fortress", 3, False, False),
    ("Naples", "two_sicilies", 14.27, 40.85, "city", 3, False, True),
    ("Palermo", "two_sicilies", 13.36, 38.12, "city", 0, False, True),
    ("Madrid", "spain", -3.7, 40.4, "city", 3, True, False),
    ("Barcelona", "spain", 2.17, 41.39, "fortress", 3, False, True),
    ("Cadiz", "spain", -6.29, 36.53, "fortress", 3, False, True),
    # a fortress: Scenario 3's set-up puts a garrison destroyed marker on it (7.2)
    ("Valencia", "spain", -0.38, 39.47, "fortress", 0, False, True),
    # Scenario 3 names these three; Gibraltar and Cagliari are fortresses (garrison destroyed
    # markers in its 7.2), Cartagena a port (its English may stand there; no marker: a city);
    # Cagliari is on Sardinia, part of the Kingdom of the Two Sicilies (2.14)
    ("Gibraltar", "spain", -5.35, 36.14, "fortress", 0, False, True),
    ("Cartagena", "spain", -0.99, 37.6, "city", 0, False, True),
    ("Cagliari", "two_sicilies", 9.11, 39.22, "fortress", 0, False, True),
    ("Lisbon", "portugal", -9.14, 38.72, "city", 3, True, True),
    ("Oporto", "portugal", -8.61, 41.15, "fortress", 0, False, True),
    ("London", "england", -0.13, 51.5, "city", 9, True, True),
    ("Portsmouth", "england", -1.09, 50.8, "fortress", 0, False, True),
    ("York", "england", -1.08, 53.96, "city", 0, False, False),
    ("Bristol", "england", -2.58, 51.45, "city", 0, False, True),
    ("Dublin", "ireland", -6.26, 53.35, "city", 0, False, True),
    ("Cork", "ireland", -8.47, 51.9, "fortress", 0, False, True),
    ("Algiers", "barbary_states", 3.06, 36.75, "fortress", 0, False, True),
    ("Oran", "barbary_states", -0.64, 35.7, "fortress", 0, False, True),
    ("Tunis", "barbary_states", 10.18, 36.8, "fortress", 0, False, True),
    ("Bone", "barbary_states", 7.76, 36.9, "fortress", 0, False, True),
    ("Warsaw", "poland", 21.0, 52.23, "city", 0, False, False),
    ("Stralsund", "pomeranian_sweden", 13.08, 54.31, "fortress", 0, False, True),
    ("Belgrade", "ottoman_empire", 20.46, 44.8, "fortress", 0, False, False),
]
# unnamed anchors of a state's territory (state, longitude, latitude)
ANCHORS = [
    ("france", 0.5, 47.0),
    ("france", 2.5, 44.5),
    ("france", -2.0, 47.5),
    ("france", 4.5, 47.5),
    ("spain", -5.5, 39.0),
    ("spain", -2.0, 42.0),
    ("spain", -4.5, 37.5),
    ("spain", -7.0, 42.5),
    ("portugal", -8.0, 40.0),
    ("austria", 13.0, 47.5),
    ("austria", 16.0, 49.5),
    ("austria", 17.5, 50.0),
    ("hungary", 21.0, 47.0),
    ("hungary", 22.5, 48.5),
    ("hungary", 19.5, 45.5),
    ("prussia", 16.0, 53.5),
    ("prussia", 18.5, 54.0),
    ("poland", 19.0, 51.0),
    ("poland", 23.0, 53.0),
    ("poland", 24.0, 50.0),
    ("poland", 27.5, 56.0),
    ("poland", 25.0, 55.0),
    ("poland", 28.0, 52.0),
    ("ottoman_empire", 24.0, 44.0),
    ("ottoman_empire", 28.0, 46.5),
    ("ottoman_empire", 18.0, 43.5),
    ("german_states", 10.5, 51.0),
    ("german_states", 8.0, 52.0),
    ("german_states", 10.5, 54.0),
    ("german_states", 9.0, 49.0),
    ("denmark", 9.5, 56.0),
    ("denmark", 10.0, 58.5),
    ("denmark", 15.0, 58.5),
    ("england", -3.0, 52.5),
    ("england", -2.5, 55.0),
    ("england", -4.5, 57.0),
    ("ireland", -8.0, 53.5),
    ("barbary_states", 5.0, 35.8),
    ("barbary_states", -3.0, 35.2),
    ("two_sicilies", 16.0, 39.5),
    ("papal_states", 13.0, 43.0),
]
# 2.14's pieces of a state away from the rest, one hex each where the nearest-place rule does
# not reach them (name, state, longitude, latitude): "the minor German states include ...
# Salzburg and Lorraine", "Papal States: includes ... Avignon in France", "Prussia includes
# ... three hexes in western Germany" (Cleves, Mark and Minden: not named, assumed), "Venice
# also includes the territory around Zara on the Dalmatian coast". A named clear hex (the
# nearest land hex no place holds when the place falls on one, or at sea).
ENCLAVES = [
    ("Salzburg", "german_states", 13.05, 47.8),
    ("Lorraine", "german_states", 6.18, 48.69),
    ("Avignon", "papal_states", 4.81, 43.95),
    ("Cleves", "prussia", 6.14, 51.79),
    ("Mark", "prussia", 7.6, 51.45),
    ("Minden", "prussia", 8.92, 52.29),
    ("Zara", "venice", 15.23, 44.12),
]
SEAS = [
    (3.0, 55.0),
    (5.5, 57.5),
    (1.5, 53.5),
    (-0.5, 57.5),
    (-1.5, 50.2),
    (-4.0, 49.6),
    (-9.5, 46.5),
    (-12.0, 50.0),
    (-11.5, 43.0),
    (-12.0, 55.0),
    (-12.0, 38.0),
    # the Channel and the Strait of Dover, so that the North Sea meets the Atlantic (21.0)
    (1.4, 51.0),
    (0.0, 50.3),
    (-2.0, 50.0),
    # the Atlantic off Portugal, so that Lisbon and Oporto share one sea (21.0, 22.23)
    (-10.5, 41.8),
    (-10.5, 40.5),
    (-10.5, 39.2),
    (-8.0, 47.5),
    (-4.0, 45.5),
    (-5.0, 53.8),
    (-6.5, 51.0),
    (4.5, 41.0),
    (7.5, 39.5),
    (2.0, 38.8),
    (11.0, 40.0),
    (17.5, 38.0),
    (6.0, 42.5),
    (15.5, 43.2),
    (17.8, 41.9),
    (13.6, 44.8),
    (16.5, 56.0),
    (19.5, 57.5),
    (14.5, 55.0),
    (11.5, 57.2),
    (19.0, 55.5),
    (21.5, 59.0),
    (-2.0, 37.0),
    (9.0, 43.0),
    (-7.8, 37.0),
    (10.0, 38.0),
    (19.5, 40.0),
    (22.0, 38.0),
    # the coast around Cartagena, added with it: Cartagena's hex would otherwise draw the
    # sea between Spain and the Barbary States into Spain
    (-0.9, 36.9),
    (0.5, 37.3),
    (-2.2, 36.5),
]
MOUNTAINS = [
    (8.5, 46.5),
    (10.2, 46.6),
    (12.2, 46.9),
    (7.0, 45.8),
    (0.5, 42.7),
    (-1.2, 42.9),
    (1.8, 42.5),
]
# river hexes: points along the Rhine and the Danube (the hexes they pass through)
RIVERS = [
    [
        (7.6, 47.6),
        (7.75, 48.58),
        (8.36, 49.63),
        (7.6, 50.36),
        (6.96, 50.94),
        (6.2, 51.8),
        (4.48, 51.92),
    ],
    [
        (8.5, 48.0),
        (9.99, 48.4),
        (10.78, 48.72),
        (11.43, 48.77),
        (13.43, 48.57),
        (14.29, 48.3),
        (16.37, 48.21),
        (17.1, 48.15),
        (19.04, 47.5),
        (19.0, 45.6),
        (20.46, 44.8),
    ],
]
ERRATA_HEX = "5807"


def grid(lon: float, lat: float) -> tuple[int, int]:
    c = round((lon + 10) * 1.5) + 1
    r = round((60 - lat) * 1.6) + 1
    return max(COLUMNS[0], min(COLUMNS[1], c)), max(ROWS[0], min(ROWS[1], r))


def centre(c: int, r: int) -> tuple[float, float]:
    """The hex's centre in hex widths (even columns half a hex lower)."""
    return c * 0.866, r + (0.5 if c % 2 == 0 else 0.0)


def dist(a: tuple[int, int], b: tuple[int, int]) -> float:
    (x1, y1), (x2, y2) = centre(*a), centre(*b)
    return math.hypot(x1 - x2, y1 - y2)


def neighbours(h: tuple[int, int]) -> list[tuple[int, int]]:
    """The hexes next to h (flat tops, even columns half a hex lower)."""
    c, r = h
    steps = [(0, -1), (0, 1), (-1, 0), (-1, 1), (1, 0), (1, 1)] if c % 2 == 0 else [(0, -1), (0, 1), (-1, -1), (-1, 0), (1, -1), (1, 0)]
    return [
        (c + dc, r + dr)
        for dc, dr in steps
        if COLUMNS[0] <= c + dc <= COLUMNS[1] and ROWS[0] <= r + dr <= ROWS[1]
    ]


def channels(taken: dict[tuple[int, int], tuple], sea: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """The land hexes made all-sea so that every port reaches the sea (assumed).

    Ports are taken nearest the sea first; a port next to the sea, to a channel or to a port
    that reaches the sea reaches it too (fleets pass through ports); else the unnamed hexes
    on a way from it to the nearest all-sea hex are cut.
    """
    cut: set[tuple[int, int]] = set()
    wet: set[tuple[int, int]] = set()
    ports = [h for h in taken if taken[h][7]]
    for h in sorted(ports, key=lambda p: (min(dist(p, s) for s in sea), p)):
        here = h
        while not any(n in sea or n in cut or n in wet for n in neighbours(here)):
            goal = min(sea | cut, key=lambda s: (dist(here, s), s))
            here = min(neighbours(here), key=lambda n: (dist(n, goal), n))
            if here not in taken:
                cut.add(here)
        wet.add(h)
    return cut


def number(c: int, r: int) -> str:
    return f"{c:02d}{r:02d}"


def main() -> None:
    taken: dict[tuple[int, int], tuple] = {}
    for place in PLACES:
        at = grid(place[2], place[3])
        ring = sorted(
            ((c, r) for c in range(at[0] - 2, at[0] + 3) for r in range(at[1] - 2, at[1] + 3)),
            key=lambda h: (dist(h, at), h),
        )
        spot = next(
            h
            for h in ring
            if h not in taken and COLUMNS[0] <= h[0] <= COLUMNS[1] and ROWS[0] <= h[1] <= ROWS[1]
        )
        taken[spot] = place
    land = [(h, p[1]) for h, p in taken.items()] + [(grid(lo, la), s) for s, lo, la in ANCHORS]
    seas = [grid(lo, la) for lo, la in SEAS]
    mountains = [grid(lo, la) for lo, la in MOUNTAINS]
    river: set[tuple[int, int]] = set()
    for line in RIVERS:
        pts = [grid(lo, la) for lo, la in line]
        for a, b in zip(pts, pts[1:], strict=False):
            steps = max(abs(a[0] - b[0]), abs(a[1] - b[1])) * 2 + 1
            for i in range(steps + 1):
                t = i / steps
                river.add((round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t)))
    out = [
        "# yaml-language-server: $schema=../../schemas/board.schema.json",
        "# Generated by scripts/marlborough_board.py (the one place where the map's assumptions",
        "# live, with their reasons); edit the script, not this file.",
        "board:",
        "  entity: hex",
        "  title: Western and Central Europe, 1701-1714",
        "  rules: [MARL-2.1-01, MARL-2.11-01, MARL-2.12-01, MARL-2.14-02, MARL-ERR-01]",
        "  assumed: >-",
        "    the rulebook prints no map: the grid (60 x 40, holding hex 5807), where each named",
        "    place stands (by its longitude and latitude), the state of every hex (the nearest",
        "    place's), the seas, mountains and river hexes are all assumed",
        "    (scripts/marlborough_board.py)",
        "  columns: [1, 60]",
        "  rows: [1, 40]",
        "  shifted: even",
        "  terrain:",
        '    clear: {title: Clear, color: "#ece6c4"}',
        '    mountain: {title: Mountains, color: "#b99872",'
        ' assumed: "the Terrain Effects Chart is not printed"}',
        '    city: {title: City, color: "#e2a9a0"}',
        '    fortress: {title: Fortress, color: "#c07a70"}',
        '    sea: {title: All-sea, color: "#bcd7ee"}',
        "  default: clear",
        "  defaults: {economic: 0, capital: false, port: false, river: false}",
        "  borders: nation",
        "  hexes:",
    ]
    sea: set[tuple[int, int]] = set()
    for c in range(COLUMNS[0], COLUMNS[1] + 1):
        for r in range(ROWS[0], ROWS[1] + 1):
            h = (c, r)
            if h not in taken:
                near_land = min(land, key=lambda x: (dist(h, x[0]), x[1]))
                if min(dist(h, s) for s in seas) < dist(h, near_land[0]):
                    sea.add(h)
    cut = channels(taken, sea)
    enclaves: dict[tuple[int, int], tuple[str, str]] = {}
    for name, state, lo, la in ENCLAVES:
        # the nearest land hex that no place, channel or other enclave holds
        at = grid(lo, la)
        ring = sorted(
            ((c, r) for c in range(at[0] - 2, at[0] + 3) for r in range(at[1] - 2, at[1] + 3)),
            key=lambda h: (dist(h, at), h),
        )
        free = (h for h in ring if h not in taken and h not in sea and h not in enclaves)
        enclaves[next(free)] = (name, state)
    for c in range(COLUMNS[0], COLUMNS[1] + 1):
        for r in range(ROWS[0], ROWS[1] + 1):
            h = (c, r)
            vals: dict[str, object] = {}
            if h in cut:
                vals = {"terrain": "sea", "assumed": "a channel: every port touches the sea (21.10)"}
            elif h in taken:
                name, state, _lo, _la, terrain, tp, capital, port = taken[h]
                vals = {"terrain": terrain, "name": name, "nation": state}
                if tp:
                    vals["economic"] = tp
                if capital:
                    vals["capital"] = True
                if port:
                    vals["port"] = True
            else:
                near_land = min(land, key=lambda x: (dist(h, x[0]), x[1]))
                near_sea = min(dist(h, s) for s in seas)
                if near_sea < dist(h, near_land[0]):
                    vals = {"terrain": "sea"}
                else:
                    vals = {"nation": near_land[1]}
                    if min(dist(h, m) for m in mountains) < 1.3:
                        vals["terrain"] = "mountain"
                    enclave = enclaves.get(h)
                    if enclave is not None:
                        vals = {**vals, "name": enclave[0], "nation": enclave[1]}
            if number(c, r) == ERRATA_HEX:
                vals["name"] = "Hex 5807"
            if h in river and vals.get("terrain") != "sea":
                vals["river"] = True
            if vals.get("terrain") == "sea":
                vals.pop("river", None)
            body = ", ".join(f"{k}: {_y(v)}" for k, v in vals.items())
            out.append(f'    "{number(c, r)}": {{{body}}}')
    out += [
        "  boxes:",
        "    eliminated: {name: Eliminated}",
        '    denmark: {name: Around Denmark, links: ["2601", "3502"], assumed: "21.9: the map\'s'
        " Denmark box joins the North Sea to the Baltic; its two ends are not printed: the"
        ' northernmost all-sea hexes west and east of Denmark on this map"}',
        "  costs:",
        "    march:",
        '      assumed: "the Terrain Effects Chart is not printed: clear 1 and mountains 3'
        ' follow from the 15.31 example, cities and fortresses 1 are assumed"',
        "      terrain: {clear: 1, mountain: 3, city: 1, fortress: 1, sea: null}",
    ]
    OUT.write_text("\n".join(out) + "\n")


def _y(v: object) -> str:
    if v is True:
        return "true"
    if isinstance(v, str) and (" " in v or v[:1].isdigit()):
        return f'"{v}"'
    return str(v)


if __name__ == "__main__":
    main()
