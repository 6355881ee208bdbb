"""Boards: a hex grid declared as data (``rules/<game>/board.yaml``).

Hexes are numbered as printed, ``CCRR`` (hex 5807: column 58, row 07). Hexes have flat tops;
a column is a vertical line of hexes, and every other column (``shifted: even`` or ``odd``)
stands half a hex lower. The compiler computes the neighbours of every hex, checks the
hexsides (a feature between two hexes that do not touch is an error at it) and the terrain
names, and makes the hexes and the boxes off the map records of the board's entity type,
with the attributes ``terrain``, ``adjacent``, ``column``, ``row`` and ``on_map``. So a board is
a map the graph builtins (``reachable``, ``path_cost``) walk like any other; ``distance``,
``crosses`` and cost schemes (``costs=``) read the grid.
"""

from __future__ import annotations

from typing import Any

from . import ir
from .diagnostics import DiagnosticSink, did_you_mean
from .loader import Document

#: the attributes a board gives its entity type
BOARD_ATTRIBUTES = ("terrain", "adjacent", "column", "row", "on_map")
#: the keys of a hex in ``hexes:`` that are not values of the entity's attributes
HEX_KEYS = {"terrain", "name", "assumed"}


def hex_id(number: str) -> str:
    """The record id of hex ``number``: ``h0203``."""
    return "h" + number


def lower(column: int, shifted: str) -> bool:
    """Whether ``column`` stands half a hex lower than its neighbours."""
    return column % 2 == (0 if shifted == "even" else 1)


def neighbours(column: int, row: int, shifted: str) -> list[tuple[int, int]]:
    """The six places around a hex, clockwise from the one above (some may be off the grid)."""
    d = 0 if lower(column, shifted) else -1
    return [
        (column, row - 1),
        (column + 1, row + d),
        (column + 1, row + d + 1),
        (column, row + 1),
        (column - 1, row + d + 1),
        (column - 1, row + d),
    ]


def axial(column: int, row: int, shifted: str) -> tuple[int, int]:
    """Axial coordinates of a hex: steps to a neighbour change them by one of the six unit
    vectors, so the distance is ``(|dq| + |dr| + |dq + dr|) / 2``."""
    below = (column + 1) // 2 if shifted == "even" else column // 2
    return column, row - below


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """The number of steps between two hexes given by their axial coordinates."""
    dq, dr = b[0] - a[0], b[1] - a[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def build_board(doc: Document, game: ir.Game, sink: DiagnosticSink) -> ir.Board | None:
    """The board of ``board.yaml`` (validated by its schema), its names checked against the
    game; its entity type gets the board's attributes and its enum ``terrain``."""
    d = doc.data["board"]
    base = ("board",)
    ok = True

    def err(message: str, path: tuple, hint: str | None = None, key: bool = False) -> None:
        nonlocal ok
        ok = False
        sink.error("board", message, doc.key_pos(path) if key else doc.pos(path), hint)

    et = game.entities.get(d["entity"])
    if et is None:
        err(
            f"unknown entity type {d['entity']!r}",
            (*base, "entity"),
            did_you_mean(d["entity"], game.entities)
            or "declare the hexes' type in game.yaml: state: entities: hex: {plural: hexes}",
        )
        return None

    def kinds(key: str) -> dict[str, ir.BoardKind]:
        out = {}
        for name, spec in (d.get(key) or {}).items():
            spec = spec or {}
            out[name] = ir.BoardKind(
                name,
                str(spec.get("title") or name.replace("_", " ").capitalize()),
                str(spec.get("color") or ""),
                str(spec.get("assumed") or ""),
            )
        return out

    terrain, features = kinds("terrain"), kinds("features")

    def known(name: str, table: dict, what: str, path: tuple, key: bool = False) -> bool:
        if name in table:
            return True
        err(
            f"unknown {what} {name!r}",
            path,
            did_you_mean(name, table) or f"{what}s: " + (", ".join(table) or "none declared"),
            key,
        )
        return False

    known(d["default"], terrain, "terrain", (*base, "default"))
    (c0, c1), (r0, r1) = d["columns"], d["rows"]
    for key, lo, hi in (("columns", c0, c1), ("rows", r0, r1)):
        if lo > hi:
            err(f"{key} go from {lo} to {hi}: the first is the lower", (*base, key))
    shifted = str(d.get("shifted", "even"))
    cells: dict[str, ir.BoardCell] = {}
    for c in range(c0, c1 + 1):
        for r in range(r0, r1 + 1):
            number = f"{c:02d}{r:02d}"
            cells[number] = ir.BoardCell(
                hex_id(number), number, c, r, d["default"], number, doc.pos((*base, "columns"))
            )

    def on_grid(number: str, path: tuple, key: bool = True) -> ir.BoardCell | None:
        cell = cells.get(number)
        if cell is None:
            err(
                f"hex {number} is off the board "
                f"(columns {c0:02d}-{c1:02d}, rows {r0:02d}-{r1:02d})",
                path,
                "hex numbers are column then row, two digits each: 0305 is column 3, row 5",
                key,
            )
        return cell

    for number, spec in (d.get("hexes") or {}).items():
        path = (*base, "hexes", number)
        cell = on_grid(str(number), path)
        if cell is None:
            continue
        cell.pos = doc.key_pos(path)
        spec = {"terrain": spec} if isinstance(spec, str) else dict(spec or {})
        if "terrain" in spec:
            where = (*path, "terrain") if doc.has((*path, "terrain")) else path
            if known(str(spec["terrain"]), terrain, "terrain", where):
                cell.terrain = str(spec["terrain"])
        cell.name = str(spec.get("name") or cell.number)
        cell.assumed = str(spec.get("assumed") or "")
        for k, v in spec.items():
            if k in HEX_KEYS:
                continue
            if k in BOARD_ATTRIBUTES or k not in et.attributes:
                attrs = [a for a in et.attributes if a not in BOARD_ATTRIBUTES]
                err(
                    f"hex {number}: {k!r} is not an attribute of {et.name!r} a hex may give",
                    (*path, k),
                    did_you_mean(k, attrs) or f"attributes of {et.name}: " + ", ".join(attrs),
                    key=True,
                )
                continue
            cell.values[k] = (v, (*path, k))
    defaults = dict(d.get("defaults") or {})
    for k in list(defaults):
        if k in BOARD_ATTRIBUTES or k not in et.attributes:
            attrs = [a for a in et.attributes if a not in BOARD_ATTRIBUTES]
            err(
                f"defaults: {k!r} is not an attribute of {et.name!r} a hex may give",
                (*base, "defaults", k),
                did_you_mean(k, attrs) or f"attributes of {et.name}: " + ", ".join(attrs),
                key=True,
            )
            del defaults[k]
    adjacent: dict[str, list[str]] = {}
    for cell in cells.values():
        adjacent[cell.id] = [
            hex_id(f"{c:02d}{r:02d}")
            for c, r in neighbours(cell.column, cell.row, shifted)
            if f"{c:02d}{r:02d}" in cells
        ]
    sides: dict[tuple[str, str], tuple[str, ...]] = {}
    for side, spec in (d.get("hexsides") or {}).items():
        path = (*base, "hexsides", side)
        a, b = str(side).split("/")
        ca, cb = on_grid(a, path), on_grid(b, path)
        if ca is None or cb is None:
            continue
        if cb.id not in adjacent[ca.id]:
            err(
                f"hexside {side}: hexes {a} and {b} do not touch",
                path,
                f"the neighbours of {a} are "
                + ", ".join(n[1:] for n in adjacent[ca.id])
                + f" (columns shifted: {shifted})",
                key=True,
            )
            continue
        names = [spec] if isinstance(spec, str) else list(spec)
        for i, f in enumerate(names):
            known(
                str(f), features, "hexside feature", path if isinstance(spec, str) else (*path, i)
            )
        pair = (ca.id, cb.id) if ca.number < cb.number else (cb.id, ca.id)
        if pair in sides:
            err(
                f"hexside {side} is given twice (also as {pair[0][1:]}/{pair[1][1:]})",
                path,
                key=True,
            )
        sides[pair] = tuple(str(f) for f in names)
    boxes = []
    for bid, spec in (d.get("boxes") or {}).items():
        path = (*base, "boxes", bid)
        if bid in {c.id for c in cells.values()}:
            err(f"box {bid!r} has the id of a hex", path, key=True)
        box_terrain = None
        if "terrain" in spec and known(
            str(spec["terrain"]), terrain, "terrain", (*path, "terrain")
        ):
            box_terrain = str(spec["terrain"])
        boxes.append(
            ir.BoardCell(
                bid,
                "",
                0,
                0,
                box_terrain,
                str(spec["name"]),
                doc.key_pos(path),
                str(spec.get("assumed") or ""),
            )
        )
        adjacent[bid] = []
        for i, number in enumerate(spec.get("links") or []):
            cell = on_grid(str(number), (*path, "links", i), key=False)
            if cell is not None and bid not in adjacent[cell.id]:
                adjacent[bid].append(cell.id)
                adjacent[cell.id].append(bid)
    for cell in [*cells.values(), *boxes]:
        for k, v in defaults.items():
            cell.values.setdefault(k, (v, (*base, "defaults", k)))
    borders = str(d.get("borders") or "")
    if borders and (borders in BOARD_ATTRIBUTES or borders not in et.attributes):
        attrs = [a for a in et.attributes if a not in BOARD_ATTRIBUTES]
        err(
            f"borders: {borders!r} is not an attribute of {et.name!r}",
            (*base, "borders"),
            did_you_mean(borders, attrs) or f"attributes of {et.name}: " + ", ".join(attrs),
        )
    costs: dict[str, tuple[dict[str, int | None], dict[str, int | None], str]] = {}
    for scheme, spec in (d.get("costs") or {}).items():
        path = (*base, "costs", scheme)
        tcost = dict(spec.get("terrain") or {})
        scost = dict(spec.get("hexsides") or {})
        for t in tcost:
            known(t, terrain, "terrain", (*path, "terrain", t), key=True)
        for f in scost:
            known(f, features, "hexside feature", (*path, "hexsides", f), key=True)
        missing = [t for t in terrain if t not in tcost]
        if missing:
            err(
                f"cost scheme {scheme!r} gives no cost for terrain {', '.join(missing)}",
                (*path, "terrain"),
                "give every terrain a cost (null: it cannot be entered)",
                key=True,
            )
        costs[scheme] = (tcost, scost, str(spec.get("assumed") or ""))
    for name in BOARD_ATTRIBUTES:
        if name in et.attributes or name in et.fields:
            f = et.attributes.get(name) or et.fields[name]
            sink.error(
                "board",
                f"{et.name!r} declares {name!r}, which its board gives",
                f.origin.pos,
                f"remove it from game.yaml: the board ({doc.path}) gives every {et.name} its "
                + ", ".join(BOARD_ATTRIBUTES),
            )
            ok = False
    if "terrain" in game.enums:
        sink.error(
            "board",
            "enum 'terrain' is declared, and the board makes it from its terrain",
            game.enums["terrain"].origin.pos,
            "remove it from game.yaml; the board's terrain: names its values",
        )
        ok = False
    if not ok:
        return None
    origin = ir.Origin(doc.key_pos(base), tuple(d.get("rules") or ()), "")
    game.enums["terrain"] = ir.EnumDecl("terrain", tuple(terrain), origin)
    given: dict[str, ir.Field] = {
        "terrain": ir.Field("terrain", ir.enum("terrain"), origin, optional=True, const=True),
        # the grid itself: the terminal's board leaves it out (the map shows it)
        "adjacent": ir.Field(
            "adjacent", ir.list_of(ir.entity(et.name)), origin, const=True, internal=True
        ),
        "column": ir.Field("column", ir.INT, origin, const=True, internal=True),
        "row": ir.Field("row", ir.INT, origin, const=True, internal=True),
        "on_map": ir.Field("on_map", ir.BOOL, origin, const=True, internal=True),
    }
    et.attributes = {**given, **et.attributes}
    return ir.Board(
        entity=et.name,
        title=str(d.get("title") or "Map"),
        origin=origin,
        columns=(c0, c1),
        rows=(r0, r1),
        shifted=shifted,
        terrain=terrain,
        features=features,
        default=str(d["default"]),
        cells=[*cells.values(), *boxes],
        adjacent=adjacent,
        sides=sides,
        costs=costs,
        assumed=str(d.get("assumed") or ""),
        doc=doc,
        borders=borders,
    )


def board_values(board: ir.Board) -> list[tuple[str, str, Any, Any, tuple]]:
    """``(record id, attribute, value, position, path in board.yaml)`` of every value the
    board gives its records."""
    out: list[tuple[str, str, Any, Any, tuple]] = []
    for cell in board.cells:
        on_map = bool(cell.number)
        given = {
            "name": cell.name,
            "terrain": cell.terrain,
            "adjacent": list(board.adjacent[cell.id]),
            "column": cell.column,
            "row": cell.row,
            "on_map": on_map,
        }
        for k, v in given.items():
            out.append((cell.id, k, v, cell.pos, ()))
        for k, (v, path) in cell.values.items():
            out.append((cell.id, k, v, board.doc.pos(path), path))
    return out


def step_costs(board: ir.Board, scheme: str, index: dict[str, int]) -> tuple[tuple[Any, ...], ...]:
    """Per record (by index): the ``(neighbour, cost)`` of every step a cost scheme allows:
    the terrain cost of the hex entered plus the cost of each feature of the hexside."""
    tcost, scost, _ = board.costs[scheme]
    terrain = {c.id: c.terrain for c in board.cells}
    out: list[tuple[Any, ...]] = []
    for cell in board.cells:
        steps = []
        for n in board.adjacent[cell.id]:
            t = terrain[n]
            cost = tcost.get(t) if t is not None else None
            pair = (cell.id, n) if cell.id < n else (n, cell.id)
            for f in board.sides.get(pair, ()):
                extra = scost.get(f, 0)
                cost = None if cost is None or extra is None else cost + extra
            if cost is not None:
                steps.append((index[n], cost))
        out.append(tuple(steps))
    return tuple(out)
