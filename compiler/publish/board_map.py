"""The map of a game's board (``board.yaml``) on its reference sheet: an SVG drawn from the board
data, hexes coloured by terrain, hexside features drawn on their hexsides, every hex with its
number (and name), assumed parts marked † with the number of their note; with it the legend and
the terrain effects (the cost schemes) as a table.

The SVG is text made here, deterministic (coordinates rounded to 0.1), every text escaped.
"""

from __future__ import annotations

import base64
import math
from dataclasses import dataclass, field
from html import escape
from typing import Any

from ..board import lower
from .views import Footnote, Sheet

#: the radius of a hex in SVG units (centre to corner)
SIZE = 40.0
ROOT3 = math.sqrt(3.0)
#: millimetres per SVG unit on the sheet: a hex 17.6 mm across, its number in 7.5 pt
MM = 0.22
#: the most columns and rows of one part of the map (165 x 207 mm: an A4 or letter page)
TILE_COLUMNS = 12
TILE_ROWS = 12
#: colours of kinds the board gives none
GREY = "#dddddd"
FEATURE = "#1f4fa0"


@dataclass
class MapKey:
    """One line of the map's legend: a terrain or a hexside feature."""

    kind: str  # "terrain" or "feature"
    title: str
    color: str
    mark: int = 0  # the note of an assumed kind, or 0


#: the rules the page's stylesheet gives a map's texts, for a map drawn as an image of its own
_IMAGE_STYLE = (
    "<style>text { font-family: 'DejaVu Sans', sans-serif; } .num { fill: #333333; } "
    ".name { font-weight: bold; fill: #000000; } .dagger { fill: #8a5a00; font-weight: bold; }"
    "</style>"
)


@dataclass
class MapTile:
    """A part of the map that fits a page (the whole map, for a small board)."""

    caption: str  # "columns 01-12, rows 01-12", or "" for the whole map
    svg: str
    width_mm: float

    @property
    def image(self) -> str:
        """The tile as an image (a ``data:`` URI of a standalone SVG), for the PDF: WeasyPrint
        draws an image without styling each of its thousands of elements as part of the page
        (a 2,400-hex board's 20 tiles laid out in 12 s rather than 18-24)."""
        head, _, rest = self.svg.partition(">")
        svg = head.replace(' class="board-map"', "") + ">" + _IMAGE_STYLE + rest
        return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode()


@dataclass
class MapView:
    """A board as the sheet prints it."""

    title: str
    tiles: list[MapTile] = field(default_factory=list)
    keys: list[MapKey] = field(default_factory=list)
    boxes: list[tuple[str, int]] = field(default_factory=list)  # (name, note or 0)
    #: terrain effects: the cost schemes as columns, terrain then features as rows
    costs: list[str] = field(default_factory=list)
    cost_rows: list[tuple[str, list[str]]] = field(default_factory=list)
    cost_marks: list[int] = field(default_factory=list)
    mark: int = 0  # the whole board is assumed


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def centre(
    board: Any, column: int, row: int, origin: tuple[int, int] | None = None
) -> tuple[float, float]:
    """The centre of a hex in SVG units (flat tops; shifted columns half a hex lower), the
    first column and row of the picture at ``origin`` (default: the board's)."""
    c0, r0 = origin or (board.columns[0], board.rows[0])
    x = SIZE + (column - c0) * 1.5 * SIZE + 4
    y = ROOT3 / 2 * SIZE + (row - r0) * ROOT3 * SIZE + 4
    if lower(column, board.shifted):
        y += ROOT3 / 2 * SIZE
    return x, y


def _corner(x: float, y: float, degrees: float, r: float = SIZE) -> tuple[float, float]:
    a = math.radians(degrees)
    return x + r * math.cos(a), y + r * math.sin(a)


def _edge(
    board: Any, a: Any, b: Any, origin: tuple[int, int]
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The ends of the hexside between two neighbouring hexes."""
    ax, ay = centre(board, a.column, a.row, origin)
    bx, by = centre(board, b.column, b.row, origin)
    angle = math.degrees(math.atan2(by - ay, bx - ax))
    return _corner(ax, ay, angle - 30), _corner(ax, ay, angle + 30)


def board_svg(
    board: Any,
    marks: dict[str, int],
    mark: int = 0,
    window: tuple[int, int, int, int] | None = None,
) -> str:
    """The SVG of a board, or of the part of it in ``window`` (first and last column, first
    and last row); ``marks`` gives the note number of every assumed hex (by id) and of
    every assumed terrain or feature (by ``terrain:<name>``, ``feature:<name>``)."""
    c0, c1, r0, r1 = window or (*board.columns, *board.rows)
    origin = (c0, r0)
    width = 2 * SIZE + (c1 - c0) * 1.5 * SIZE + 8
    height = ROOT3 * SIZE * (r1 - r0 + 1.5) + 8
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board-map" '
        f'viewBox="0 0 {_f(width)} {_f(height)}" role="img" '
        f'aria-label="{escape(board.title)}">'
    ]
    cells = {c.id: c for c in board.cells if c.number}
    shown = {k: c for k, c in cells.items() if c0 <= c.column <= c1 and r0 <= c.row <= r1}
    for cell in shown.values():
        x, y = centre(board, cell.column, cell.row, origin)
        kind = board.terrain.get(cell.terrain or "")
        color = kind.color if kind is not None and kind.color else GREY
        points = " ".join(
            f"{_f(px)},{_f(py)}" for px, py in (_corner(x, y, 60 * i) for i in range(6))
        )
        title = f"{cell.number} {cell.name if cell.name != cell.number else ''}".strip()
        tmark = marks.get(f"terrain:{cell.terrain}", 0)
        title += f" ({kind.title if kind else 'no terrain'}{f' †{tmark}' if tmark else ''})"
        out.append(
            f'<g class="hex" id="hex-{cell.number}"><title>{escape(title)}</title>'
            f'<polygon points="{points}" fill="{color}" stroke="#555555" stroke-width="1"/>'
        )
        out.append(
            f'<text x="{_f(x)}" y="{_f(y - SIZE * 0.52)}" class="num" text-anchor="middle" '
            f'font-size="{_f(SIZE * 0.3)}">{cell.number}</text>'
        )
        hmark = marks.get(cell.id, 0)
        if cell.name != cell.number or hmark:
            name = cell.name if cell.name != cell.number else ""
            # a long name in a smaller size, to stay inside its hex (a letter ~0.6 of a size)
            chars = len(name) + (len(str(hmark)) + 1 if hmark else 0)
            size = min(SIZE * 0.3, SIZE * 1.7 / 0.6 / max(chars, 1))
            dagger = (
                f'<tspan class="dagger" fill="#8a5a00" font-size="{_f(size * 0.85)}" '
                f'baseline-shift="super">†{hmark}</tspan>'
                if hmark
                else ""
            )
            out.append(
                f'<text x="{_f(x)}" y="{_f(y + SIZE * 0.15)}" class="name" '
                f'text-anchor="middle" font-size="{_f(size)}">{escape(name)}{dagger}</text>'
            )
        out.append("</g>")
    if board.borders:  # a dashed line between hexes of different values
        value = {c.id: c.values.get(board.borders, (None, ()))[0] for c in cells.values()}
        for a in sorted(shown):
            for b in board.adjacent[a]:
                if b in cells and (a < b or b not in shown) and value[a] != value[b]:
                    p1, p2 = _edge(board, cells[a], cells[b], origin)
                    out.append(
                        f'<line class="border" x1="{_f(p1[0])}" y1="{_f(p1[1])}" '
                        f'x2="{_f(p2[0])}" y2="{_f(p2[1])}" stroke="#7a1f1f" '
                        'stroke-width="2.5" stroke-dasharray="6,3"/>'
                    )
    for (a, b), names in sorted(board.sides.items()):
        if a not in shown and b not in shown:
            continue
        ca, cb = cells[a], cells[b]
        p1, p2 = _edge(board, ca, cb, origin)
        for i, name in enumerate(names):
            kind = board.features.get(name)
            color = kind.color if kind is not None and kind.color else FEATURE
            width_px = 7 if i == 0 else 3
            out.append(
                f'<line class="side side-{escape(name)}" x1="{_f(p1[0])}" y1="{_f(p1[1])}" '
                f'x2="{_f(p2[0])}" y2="{_f(p2[1])}" stroke="{color}" '
                f'stroke-width="{width_px}" stroke-linecap="round">'
                f"<title>{escape(kind.title if kind else name)} {ca.number}/{cb.number}</title>"
                "</line>"
            )
    if mark:
        out.append(
            f'<text x="{_f(width - 6)}" y="{_f(height - 6)}" text-anchor="end" class="dagger" '
            f'font-size="{_f(SIZE * 0.35)}">map assumed †{mark}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def map_view(board: Any, sheet: Sheet) -> MapView:
    """The board as printed on ``sheet``, its assumed parts numbered among the sheet's notes."""
    title = board.title

    def note(text: str, reason: str) -> int:
        if not reason:
            return 0
        n = len(sheet.assumed) + 1
        sheet.assumed.append(Footnote(n, title, text, reason, title, text))
        return n

    mark = note("", board.assumed)
    marks: dict[str, int] = {}
    keys = []
    for kind_name, kinds in (("terrain", board.terrain), ("feature", board.features)):
        for k in kinds.values():
            m = note(k.title, k.assumed)
            if m:
                marks[f"{kind_name}:{k.name}"] = m
            color = k.color or (GREY if kind_name == "terrain" else FEATURE)
            keys.append(MapKey(kind_name, k.title, color, m))
    if board.borders:
        keys.append(MapKey("border", f"Border of {board.borders.replace('_', ' ')}", "#7a1f1f"))
    for cell in board.cells:
        if cell.number and cell.assumed:
            text = f"hex {cell.number}" + (f" {cell.name}" if cell.name != cell.number else "")
            marks[cell.id] = note(text, cell.assumed)
    boxes = []
    for c in board.cells:
        if not c.number:
            links = [n[1:] for n in board.adjacent[c.id]]
            touches = f" (touches {', '.join(links)})" if links else ""
            boxes.append((c.name + touches, note(c.name, c.assumed)))
    view = MapView(title, keys=keys, boxes=boxes, mark=mark)
    (b0, b1), (w0, w1) = board.columns, board.rows
    for rs in range(w0, w1 + 1, TILE_ROWS):  # in reading order: across, then down
        for cs in range(b0, b1 + 1, TILE_COLUMNS):
            ce, re_ = min(cs + TILE_COLUMNS - 1, b1), min(rs + TILE_ROWS - 1, w1)
            tiled = (ce - cs, re_ - rs) != (b1 - b0, w1 - w0)
            caption = f"columns {cs:02d}-{ce:02d}, rows {rs:02d}-{re_:02d}" if tiled else ""
            width_mm = round((2 + (ce - cs) * 1.5) * SIZE * MM + 8 * MM, 1)
            svg = board_svg(board, marks, mark, (cs, ce, rs, re_))
            view.tiles.append(MapTile(caption, svg, width_mm))
    view.costs = list(board.costs)
    view.cost_marks = [note(f"costs {s}", board.costs[s][2]) for s in board.costs]

    def cost(value: Any, crossing: bool) -> str:
        if value is None:
            return "no entry" if not crossing else "no crossing"
        return f"+{value}" if crossing else str(value)

    for t in board.terrain.values():
        view.cost_rows.append(
            (t.title, [cost(board.costs[s][0].get(t.name), False) for s in view.costs])
        )
    for f in board.features.values():
        view.cost_rows.append(
            (
                f"{f.title} hexside",
                [cost(board.costs[s][1].get(f.name, 0), True) for s in view.costs],
            )
        )
    return view
