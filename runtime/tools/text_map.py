"""The hex board (``board.yaml``) as text for the terminal's ``map`` command: the hexes near
the viewing seat's forces (``map``), the whole board (``map all``) or the hexes around one hex
(``map HEX``), drawn as a grid of offset columns, with a legend.

It reads only a seat's view (``Game.view_state(player)``), never the full state: a record in
the fog of war is drawn from its :class:`~rulecraft.runtime.named.Fog` (its owner and the
places where that owner has forces in the fog), so a map tells no more than the view does.

Each hex is a line of a cell: its number, a terrain mark and what stands there (the seat's
own units by capital letters, the other units it sees by small letters, forces in the fog by
``?`` and their owner's initial). The rows of a column are two lines apart and every other
column stands one line lower, as the board's ``shifted:`` puts it half a hex lower; a region
wider than the screen is drawn in bands of columns, one under another."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..layout import NO_REF
from ..named import Fog, fog_label
from ..view import VIEWER
from .board import wrap

__all__ = ["has_map", "map_lines", "map_data", "map_pieces", "NEAR"]

#: ``map`` shows the hexes within this many steps of the seat's forces
NEAR = 2
#: the characters of a cell (a hex) across: its number, a terrain mark, what stands there
CELL = 15
#: the characters from one column of hexes to the next (a cell reaches under the next one's)
PITCH = 8


@dataclass
class _Board:
    """The grid of a game's board, read from the compiled data."""

    etype: str
    at: dict[tuple[int, int], int]  # (column, row) -> the hex's record
    place: dict[int, tuple[int, int]]  # the hex's record -> (column, row)
    axial: tuple[Any, ...]
    shifted: str  # "even" or "odd": the columns half a hex lower
    terrain: tuple[Any, ...]
    boxes: list[int] = field(default_factory=list)  # records off the map


def _board(spec: Any) -> _Board | None:
    axial = spec.data.get("bd_axial")
    if axial is None:
        return None
    etype = next(
        (
            t
            for t in spec.ids
            if f"s_e_{t}__column" in spec.data and f"s_e_{t}__on_map" in spec.data
        ),
        None,
    )
    if etype is None:
        return None
    cols, rows = spec.data[f"s_e_{etype}__column"], spec.data[f"s_e_{etype}__row"]
    on_map = spec.data[f"s_e_{etype}__on_map"]
    at: dict[tuple[int, int], int] = {}
    place: dict[int, tuple[int, int]] = {}
    boxes: list[int] = []
    shifted = "odd"
    for i in range(len(spec.ids[etype])):
        if not on_map[i]:
            boxes.append(i)
            continue
        at[(cols[i], rows[i])] = i
        place[i] = (cols[i], rows[i])
        # the axial row is the printed row less the half hexes the columns before went down
        # (compiler/board.py: axial): (c + 1) // 2 of them when evens are lower, c // 2 when
        # odds are, which differ in an odd column
        if cols[i] % 2 == 1 and rows[i] - axial[i][1] == (cols[i] + 1) // 2:
            shifted = "even"
    terrain = spec.data.get(f"s_e_{etype}__terrain") or (None,) * len(axial)
    return _Board(etype, at, place, axial, shifted, terrain, boxes)


def has_map(spec: Any) -> bool:
    """Whether the game has a hex board to draw."""
    return _board(spec) is not None


def _steps(a: Any, b: Any) -> int:
    dq, dr = b[0] - a[0], b[1] - a[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _value(spec: Any, V: list[Any], etype: str, name: str, i: int) -> Any:
    """Record ``i``'s ``name``, from the view (a field) or the rules data (an attribute)."""
    slot = spec.layout.by_path.get(f"e.{etype}.{name}")
    if slot is not None:
        v = V[slot.offset + i]
        return None if slot.kind == "ref" and v == NO_REF else v
    column = spec.data.get(f"s_e_{etype}__{name}")
    return column[i] if column is not None else None


def _positions(spec: Any, bd: _Board) -> dict[str, str]:
    """Per entity type, the field that says where on the board a record stands: the one its
    fog of war covers (``fog: at``), else its first field that holds a hex, else its first
    attribute that does (a record that never moves)."""
    out: dict[str, str] = {}
    for etype, (at, *_rest) in (spec.data.get("fog") or {}).items():
        if spec.refs.get(f"e.{etype}.{at}") == bd.etype:
            out[etype] = at
    fields = [p for p in spec.refs if p in spec.layout.by_path]
    attributes = [p for p in spec.refs if p not in spec.layout.by_path]
    for path in fields + attributes:
        parts = path.split(".")
        if spec.refs[path] != bd.etype or len(parts) != 3 or parts[0] != "e":
            continue
        if parts[1] != bd.etype:
            out.setdefault(parts[1], parts[2])
    return out


def _pieces(spec: Any, V: list[Any], bd: _Board) -> list[tuple[str, int | None, int | None, int]]:
    """What stands on the board as the view shows it: ``(etype, record, owner, place)``, a
    record None for the forces in the fog (one per owner and place)."""
    out: list[tuple[str, int | None, int | None, int]] = []
    seen: set[Any] = set()
    for etype, name in _positions(spec, bd).items():
        for i in range(len(spec.ids[etype])):
            where = _value(spec, V, etype, name, i)
            if isinstance(where, Fog):
                if where not in seen:
                    seen.add(where)
                    out.extend((etype, None, where.owner, x) for x in where.where)
                continue
            if not isinstance(where, int) or isinstance(where, bool):
                continue  # off the board, or where it stands is hidden, or several places
            owner = _value(spec, V, etype, "owner", i)
            owner = owner if isinstance(owner, int) and not isinstance(owner, bool) else None
            out.append((etype, i, owner, where))
    return out


def _marks(spec: Any, bd: _Board) -> dict[Any, str]:
    """A short mark for each kind of terrain: its first letters, unique; the commonest terrain
    of the board (its default, mostly) has none, so that what stands out is not it."""
    on_map = [bd.terrain[h] for h in bd.place if bd.terrain[h]]
    names = sorted(set(on_map))
    out: dict[Any, str] = {}
    if len(names) > 1:
        out[max(names, key=on_map.count)] = ""
    for t in names:
        if t in out:
            continue
        mark = t[:2].capitalize()
        k = 2
        while mark in out.values() and k < len(t):
            k += 1
            mark = t[0].upper() + t[k - 1]
        out[t] = mark
    return out


def _codes(n: int, upper: bool) -> str:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    code = letters[n % 26] + (str(n // 26) if n >= 26 else "")
    return code if upper else code.lower()


def _find_hex(spec: Any, bd: _Board, text: str) -> int | None:
    want = text.strip().lower()
    for i in range(len(spec.ids[bd.etype])):
        if want in (spec.ids[bd.etype][i].lower(), spec.ids[bd.etype][i][1:].lower()):
            return i
        if want == spec.name_of(bd.etype, i).lower():
            return i
    return None


def map_lines(spec: Any, V: list[Any], width: int = 80, which: str = "") -> list[str]:
    """The ``map`` as lines within ``width`` columns, from the view ``V`` of a seat
    (``Game.view_state(player)``): ``which`` "" the hexes within :data:`NEAR` steps of the
    seat's forces, "all" the whole board, else a hex (its number, id or name) and the hexes
    within :data:`NEAR` steps of it."""
    bd = _board(spec)
    if bd is None:
        return ["  This game has no hex board: board shows where everything stands."]
    me = _viewer(V)
    pieces = _pieces(spec, V, bd)
    on_map = [p for p in pieces if p[3] in bd.place]
    if which == "all":
        region = set(bd.place)
        head = "the whole board"
    elif which:
        centre = _find_hex(spec, bd, which)
        if centre is None or centre not in bd.place:
            return [
                f"  No hex {which!r} on the board: type map, map all or map HEX (e.g. map "
                f"{spec.ids[bd.etype][next(iter(bd.place))][1:]})."
            ]
        region = {h for h in bd.place if _steps(bd.axial[h], bd.axial[centre]) <= NEAR}
        head = f"the hexes within {NEAR} of {_hex_name(spec, bd, centre)}"
    else:
        mine = {p[3] for p in on_map if p[1] is not None and p[2] == me and me is not None}
        if not mine:
            region = set(bd.place)
            head = "the whole board (you have no forces on it)"
        else:
            region = {
                h for h in bd.place if any(_steps(bd.axial[h], bd.axial[m]) <= NEAR for m in mine)
            }
            head = f"the hexes within {NEAR} of your forces"
    if region == set(bd.place) and not head.startswith("the whole"):
        head += " (the whole board)"
    # the codes: one's own units (capitals), the others one sees (small), the fog (?X)
    codes: dict[tuple[str, int | None, int | None], str] = {}
    legend_units: list[str] = []
    labels = spec.seat_labels
    initials = _initials(labels)
    own = sorted({(e, i) for e, i, o, _ in pieces if i is not None and o == me and me is not None})
    other = sorted(
        {(e, i) for e, i, o, _ in pieces if i is not None and not (o == me and me is not None)}
    )
    for n, (e, i) in enumerate(own):
        codes[(e, i, None)] = _codes(n, True)
    for n, (e, i) in enumerate(other):
        codes[(e, i, None)] = _codes(n, False)
    stands: dict[int, list[str]] = {}
    shown: set[tuple[str, int | None, int | None]] = set()
    for e, i, o, where in pieces:
        key = (e, i, None) if i is not None else (e, None, o)
        code = codes.get(key) or f"?{initials.get(o, '?')}"
        codes[key] = code
        stands.setdefault(where, []).append(code)
        if where in region or where not in bd.place:
            shown.add(key)
    for key, code in codes.items():
        if key not in shown:
            continue
        e, i, o = key
        if i is None:
            legend_units.append(f"{code} {fog_label(spec, e, o)}")
        else:
            owner = _value(spec, V, e, "owner", i)
            whose = (
                " (yours)"
                if owner == me and me is not None
                else f" ({labels[owner]})"
                if isinstance(owner, int) and owner < len(labels)
                else ""
            )
            legend_units.append(f"{code} {spec.name_of(e, i)}{whose}")
    marks = _marks(spec, bd)
    lines = [f"  Map: {head}"]
    lines.extend(_grid(spec, bd, region, stands, marks, width))
    off = [b for b in bd.boxes if stands.get(b)]
    for b in off:
        lines.extend(
            wrap(
                f"{spec.name_of(bd.etype, b)} (off the map): {' '.join(stands[b])}",
                width - 1,
                "  ",
                "  ",
            )
        )
    lines.append("  Legend:")
    terr = [
        f"{m} {t}" if m else f"{t} (no mark)"
        for t, m in sorted(marks.items(), key=lambda tm: (not tm[1], tm[0]))
        if any(bd.terrain[h] == t for h in region)
    ]
    if terr:
        lines.extend(_legend("terrain", terr, width - 1))
    sides = _sides(spec, bd, region)
    if sides:
        lines.extend(_legend("hexsides", sides, width - 1))
    named = [
        f"{spec.ids[bd.etype][h][1:]} {spec.name_of(bd.etype, h)}"
        for h in sorted(region)
        if spec.name_of(bd.etype, h) != spec.ids[bd.etype][h][1:]
    ]
    if named:
        lines.extend(_legend("places", named, width - 1))
    if legend_units:
        lines.extend(_legend("forces", legend_units, width - 1))
    else:
        lines.append("    forces: none in this part of the board")
    lines.extend(
        wrap("(map all: the whole board; map HEX: the hexes around a hex)", width - 1, "  ", "  ")
    )
    return lines


def _sides(spec: Any, bd: _Board, region: set[int]) -> list[str]:
    """The hexside features between two hexes of ``region``: "river 0301/0401 0302/0401"."""
    out = []
    for key in sorted(k for k in spec.data if k.startswith("bd_side__")):
        across = spec.data[key]
        pairs = sorted(
            (spec.ids[bd.etype][a][1:], spec.ids[bd.etype][b][1:])
            for a in region
            for b in across[a]
            if a < b and b in region
        )
        if pairs:
            out.append(key[len("bd_side__") :] + " " + " ".join(f"{a}/{b}" for a, b in pairs))
    return out


def _legend(what: str, items: list[str], width: int) -> list[str]:
    """``what: item, item, ...`` as many items to a line as fit, an item never cut (unless
    it is longer than a line)."""
    out: list[str] = []
    row = f"    {what}: "
    lead = " " * len(row)
    for k, item in enumerate(items):
        item += "," if k < len(items) - 1 else ""
        if row.strip() and not row.endswith(": ") and len(row) + 1 + len(item) > width:
            out.append(row)
            row = lead
        if len(row) + len(item) > width and row == lead:
            out.extend(wrap(item, width, lead, "  "))  # longer than a line on its own
            continue
        row = row + item if row.endswith(" ") else f"{row} {item}"
    if row.strip():
        out.append(row)
    return out


def _viewer(V: list[Any]) -> int | None:
    v = V[VIEWER]
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _initials(labels: tuple[str, ...]) -> dict[int, str]:
    first = [label[:1].upper() for label in labels]
    if len(set(first)) == len(first):
        return dict(enumerate(first))
    return {k: str(k + 1) for k in range(len(labels))}


def _hex_name(spec: Any, bd: _Board, h: int) -> str:
    number = spec.ids[bd.etype][h][1:]
    name = spec.name_of(bd.etype, h)
    return number if name == number else f"{number} {name}"


def _grid(
    spec: Any,
    bd: _Board,
    region: set[int],
    stands: dict[int, list[str]],
    marks: dict[Any, str],
    width: int,
) -> list[str]:
    """The hexes of ``region`` as cells of offset columns, in bands that fit ``width``: a
    hex is one line (its number, terrain mark and what stands there), the rows of a column
    two lines apart and a lower column one line down, so a line holds every other column
    and a cell may reach under the next column's."""
    cols = sorted({bd.place[h][0] for h in region})
    rows = sorted({bd.place[h][1] for h in region})
    if not cols:
        return []
    fit = max(1, (width - 2 - CELL) // PITCH + 1)
    per_band = -(-len(cols) // -(-len(cols) // fit))  # bands as even as can be
    out: list[str] = []
    for b in range(0, len(cols), per_band):
        band = cols[b : b + per_band]
        if per_band < len(cols):
            out.append(f"  columns {band[0]:02d}-{band[-1]:02d}:")
        canvas = [[" "] * (PITCH * (len(band) - 1) + CELL) for _ in range(2 * len(rows) + 1)]
        for x, c in enumerate(band):
            down = 1 if (c % 2 == 0) == (bd.shifted == "even") else 0
            for y, r in enumerate(rows):
                h = bd.at.get((c, r))
                if h is None or h not in region:
                    continue
                number = spec.ids[bd.etype][h][1:]
                mark = marks.get(bd.terrain[h], "").ljust(2)
                text = f"{number} {mark} {_fit(stands.get(h, []), CELL - 8)}"
                for k, ch in enumerate(text.rstrip()[:CELL]):
                    canvas[2 * y + down][x * PITCH + k] = ch
        drawn = ["  " + "".join(row).rstrip() for row in canvas]
        while drawn and not drawn[0].strip():
            drawn.pop(0)  # a top row outside the region
        while drawn and not drawn[-1].strip():
            drawn.pop()
        out.extend(drawn)
    return out


def _fit(codes: list[str], room: int) -> str:
    """``codes`` space-separated within ``room`` characters; those that do not fit as +N."""
    text = ""
    for k, code in enumerate(codes):
        rest = len(codes) - k - 1
        more = f" +{rest}" if rest else ""
        if len((text + " " + code).strip()) + len(more) > room:
            return (text + f" +{len(codes) - k}").strip()
        text = (text + " " + code).strip()
    return text


def map_data(spec: Any) -> dict[str, Any] | None:
    """The board as data for a picture (the play page's map), None for a game without a hex
    board: the same for every seat and every moment of a game (the rules data alone), so it
    is made once per game and sent once per page. ``hexes``: ``[record, column, row,
    terrain (an index into ``terrain``, -1 for none), number, name or ""]``; ``sides``: per
    hexside feature, the pairs of records it lies between; ``boxes``: the records off the
    map and their names."""
    bd = _board(spec)
    if bd is None:
        return None
    terrain = sorted({str(t) for t in bd.terrain if t})
    hexes = []
    for h, (c, r) in sorted(bd.place.items()):
        number = spec.ids[bd.etype][h][1:]
        name = spec.name_of(bd.etype, h)
        t = bd.terrain[h]
        hexes.append(
            [h, c, r, terrain.index(str(t)) if t else -1, number, "" if name == number else name]
        )
    sides = {}
    for key in sorted(k for k in spec.data if k.startswith("bd_side__")):
        across = spec.data[key]
        sides[key[len("bd_side__") :]] = [
            [a, b] for a in sorted(bd.place) for b in across[a] if a < b and b in bd.place
        ]
    return {
        "shifted": bd.shifted,
        "terrain": terrain,
        "hexes": hexes,
        "sides": sides,
        "boxes": [[b, spec.name_of(bd.etype, b)] for b in bd.boxes],
    }


def map_pieces(spec: Any, V: list[Any]) -> list[list[Any]] | None:
    """What stands on the board as a seat's view ``V`` shows it (``Game.view_state``), for
    the play page's map: ``[record, [[what, kind], ...]]`` per place (a hex or a box), kind
    "own" (the viewer's), "other" (a unit it sees) or "fog" (a force in the fog of war, as
    the view labels it); None for a game without a hex board. Only the view is read."""
    bd = _board(spec)
    if bd is None:
        return None
    me = _viewer(V)
    labels = spec.seat_labels
    at: dict[int, list[list[str]]] = {}
    for e, i, o, where in _pieces(spec, V, bd):
        if i is None:
            item = [fog_label(spec, e, o), "fog"]
        else:
            mine = me is not None and o == me
            whose = "" if o is None or mine or o >= len(labels) else f" ({labels[o]})"
            item = [spec.name_of(e, i) + whose, "own" if mine else "other"]
        at.setdefault(where, []).append(item)
    return [[h, at[h]] for h in sorted(at)]
