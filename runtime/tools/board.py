"""The board as text for the terminal: what one seat sees, compact by default (rows that
hold nothing are left out), wrapped at word boundaries to the width of the screen."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Iterable, Sequence
from typing import Any

from ..spec import GameSpec, scaled_text
from ..view import is_hidden

__all__ = ["render_view", "screen_width", "wrap", "hand_lines", "card_kinds", "option_card", "BIG"]

#: a block of more rows than this is big: its rows holding nothing are left out of the
#: compact board (``board all`` shows them)
BIG = 12


def screen_width(default: int = 80) -> int:
    """The width of the terminal (its ``COLUMNS``), at least 40; ``default`` if unknown."""
    return max(40, shutil.get_terminal_size((default, 24)).columns)


def wrap(text: str, width: int, indent: str = "", more: str = "  ") -> list[str]:
    """``text`` wrapped at spaces within ``width`` columns, never cutting a word; the lines
    after the first indented by ``more`` under ``indent``."""
    if not text.strip():
        return [text.rstrip()]
    lead = indent + " " * (len(text) - len(text.lstrip()))
    return textwrap.wrap(
        text.strip(),
        max(20, width),
        initial_indent=lead,
        subsequent_indent=lead + more,
        break_long_words=False,
        break_on_hyphens=False,
    )


def _hidden(v: Any) -> str:
    n = v.size if hasattr(v, "size") else v["hidden"]
    if n is None or n is True:
        return "hidden"
    return f"{n} hidden {'card' if n == 1 else 'cards'}"


def _bare_hidden(v: Any) -> bool:
    """A hidden value that says nothing, not even how many: a row of it tells nothing."""
    return is_hidden(v) and _hidden(v) == "hidden"


def _empty(v: Any) -> bool:
    """Nothing there: none, no, zero, an empty list, or a hidden value that says nothing."""
    if _bare_hidden(v):
        return True
    if is_hidden(v):
        return False
    return v is None or v is False or v == 0 or v == [] or v == "" or v == {}


def _plain(v: Any) -> str:
    """A value that refers to nothing: a number, a flag, a text, a list of numbers."""
    if is_hidden(v):
        return _hidden(v)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return ", ".join(_plain(x) for x in v) if v else "-"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_plain(x)}" for k, x in v.items()) + "}"
    return "-" if v is None else str(v)


def _ref_name(spec: GameSpec, kind: str, v: Any) -> str:
    """The name of a referenced player, card or entity record (``v`` is its index), or of
    each of a list of them."""
    if isinstance(v, list):
        return ", ".join(_ref_name(spec, kind, x) for x in v) if v else "-"
    if v is None:
        return "-"
    if is_hidden(v):
        return _hidden(v)
    if not isinstance(v, int) or isinstance(v, bool):
        return _plain(v)
    return spec.name_of(kind, v)


#: how an empty cell reads: the compact board leaves such ``column: value`` pairs out of a
#: record shown as a block
_BLANK = ("-", "no", "0", "hidden", "")


def _table(rows: list[list[str]], width: int = 76, compact: bool = False) -> list[str]:
    """Rows as aligned columns within ``width`` characters: the widest columns wrap (at
    spaces) until the table fits, a row taking as many lines as its tallest cell."""
    n = len(rows[0])
    widths = [max(len(r[c]) for r in rows) for c in range(n)]
    # a column never gets narrower than its longest word: words are not cut
    least = [max((len(w) for r in rows for w in r[c].split()), default=1) for c in range(n)]
    while sum(widths) + 2 * (n - 1) > width:
        room = [c for c in range(n) if widths[c] > least[c]]
        if not room:
            # too many columns even with every cell wrapped: a block per record instead
            return _blocks(rows, width, compact)
        c = max(room, key=lambda c: widths[c])
        widths[c] -= 1
    out = []
    for r in rows:
        cells = [
            textwrap.wrap(cell, w, break_long_words=False) or [""]
            for cell, w in zip(r, widths, strict=True)
        ]
        for i in range(max(len(c) for c in cells)):
            parts = [
                (c[i] if i < len(c) else "").ljust(w) for c, w in zip(cells, widths, strict=True)
            ]
            out.append("  ".join(parts).rstrip())
    return out


def _blocks(rows: list[list[str]], width: int, compact: bool = False) -> list[str]:
    """Each record (after the header row) as its first cell, then ``column: value`` pairs
    wrapped within ``width`` (``compact``: those with an empty value left out)."""
    head, *body = rows
    out = []
    for r in body:
        pairs = "; ".join(
            f"{h}: {v}"
            for h, v in zip(head[1:], r[1:], strict=True)
            if not (compact and v in _BLANK)
        )
        out.append(r[0])
        out.extend(textwrap.wrap(pairs, width, initial_indent="  ", subsequent_indent="  "))
    return out


def render_view(
    V: dict[str, Any],
    spec: GameSpec,
    displays: Sequence[tuple[str, list[str]]] = (),
    compact: bool = False,
    width: int = 80,
) -> str:
    """The board as text, from a view (``Game.view(player)``; never from a full state), and
    the rules' board displays (``Game.displays(player)``: what every player may see), within
    ``width`` columns.

    ``compact`` (the terminal's board): a hidden value that says nothing (not even how many)
    is left out; in a big block (more than :data:`BIG` rows) so are the globals and the
    player rows that hold nothing (no, zero, none) for anyone, a player's flags that are
    *no*, and the records in which nothing that can change holds anything. A line at the end
    says how many rows were left out."""
    labels = spec.seat_labels
    me = V.get("viewer")
    refs = spec.refs
    line_width = width - 2
    scales: dict[str, int] = spec.data.get("field_scales", {})

    def show(path: str, key: str, v: Any) -> str:
        # a fixed field named ``owner`` is a player (as for visibility) unless declared
        kind = refs.get(path) or ("player" if key == "owner" else None)
        if path in scales and isinstance(v, int) and not isinstance(v, bool):
            return scaled_text(v, scales[path])  # a count of fractions (`scale:`)
        return _ref_name(spec, kind, v) if kind else _plain(v)

    titles: dict[str, str] = spec.data.get("field_titles", {})
    internal = set(spec.data.get("internal", ()))
    left_out = 0
    static: list[str] = []

    def title(path: str, key: str) -> str:
        """The name players read: the field's `title:`, else its name in words."""
        return titles.get(path) or key.replace("_", " ")

    # the fixed list of cards each seat plays with (determinization's universe) is noise;
    # so is what the rules declare internal (scratch flags, counters)
    skip = {"id", "name"} | ({"cards"} if "s_p_cards" in spec.data else set())
    lines = [f"== {spec.title} - turn {V['turn']} =="]
    shown = [(k, v) for k, v in V["g"].items() if f"g.{k}" not in internal]
    if compact and len(shown) > BIG:
        kept = [(k, v) for k, v in shown if not _empty(v)]
        left_out += len(shown) - len(kept)
        shown = kept
    # constants the rules put on the board (a victory target): shown first, by their titles
    for name, label in reversed(spec.data.get("board_constants", ())):
        shown.insert(0, (f"\x00{label}", spec.constants.get(name)))
    row = ""
    for k, v in shown:  # the globals, as many to a line as fit
        if k.startswith("\x00"):
            item = f"{k[1:]}: {_plain(v)}"
        else:
            item = f"{title('g.' + k, k)}: {show('g.' + k, k, v)}"
        if row and len(row) + 3 + len(item) > line_width:
            lines.append(row)
            row = ""
        if not row and len(item) > line_width - 2:
            lines.extend(wrap(item, line_width, "  ", "  "))
            continue
        row = f"{row}   {item}" if row else f"  {item}"
    if row:
        lines.append(row)
    fields = [
        k for k in (V["p"][0] if V["p"] else {}) if k not in skip and f"p.{k}" not in internal
    ]
    big = compact and len(fields) > BIG
    for i, pd in enumerate(V["p"]):
        who = labels[i] + (" (you)" if i == me else "")
        lines.append(f"{who}:")
        flags: list[str] = []
        items: list[str] = []
        for k in fields:
            v = pd.get(k)
            if compact and _bare_hidden(v):
                left_out += 1
                continue
            if big and v is True:
                flags.append(title("p." + k, k))
                continue
            if big and (v is False or all(_empty(q.get(k)) for q in V["p"])):
                left_out += 1
                continue
            item = f"{title('p.' + k, k)}: {show('p.' + k, k, v)}"
            if compact:
                items.append(item)
            else:
                lines.extend(wrap(item, line_width, "    ", "  "))
        # compact: a player's rows flow on as few lines as they fit, their flags after them
        lines.extend(_flow(items, line_width, "    "))
        if flags:
            lines.extend(wrap("; ".join(flags), line_width, "    ", "  "))
    fogs = spec.data.get("fog") or {}
    for etype, recs in V["e"].items():
        if etype in fogs:  # records in the fog of war: said below, not listed one by one
            recs = [r for r in recs if not is_hidden(r.get(fogs[etype][0]))]
        if not recs or f"e.{etype}" in internal:
            continue
        cols: list[str] = []
        for r in recs:
            cols.extend(
                c for c in r if c not in cols and c != "id" and f"e.{etype}.{c}" not in internal
            )
        changing = [c for c in cols if f"e.{etype}.{c}" in spec.layout.by_path]
        if compact and not changing:
            static.append(etype)  # nothing in it can change: reference, not the board
            continue
        if compact and len(recs) > BIG and changing:
            kept = [r for r in recs if not all(_empty(r.get(c)) for c in changing)]
            left_out += len(recs) - len(kept)
            recs = kept
            if not recs:
                continue
        heads = [title(f"e.{etype}.{c}", c) for c in cols]
        rows = [heads] + [[show(f"e.{etype}.{c}", c, r.get(c)) for c in cols] for r in recs]
        lines.append(f"{etype}:")
        if compact and len(cols) == 2 and len(recs) > BIG:
            # a long list of names with one value each: the names grouped by their value
            groups: dict[str, list[str]] = {}
            for name, value in rows[1:]:
                groups.setdefault(value, []).append(name)
            for value, names in groups.items():
                lines.extend(wrap(f"{heads[1]} {value}: {', '.join(names)}", line_width, "    "))
            continue
        lines.extend("    " + line for line in _table(rows, line_width - 4, compact))
    if V.get("fog"):
        lines.append("in the fog of war:")
        lines.extend(line for fog in V["fog"] for line in wrap(fog, line_width, "    ", "  "))
    for heading, shown_lines in displays:
        if not shown_lines:
            continue
        lines.append(f"{heading}:")
        for line in shown_lines:
            lines.extend(wrap(line, line_width, "    ", "  "))
    notes = []
    if left_out:
        notes.append(f"{left_out} rows holding nothing or hidden")
    if static:
        notes.append(f"the tables that never change ({', '.join(static)})")
    if notes:
        lines.extend(
            wrap(f"({' and '.join(notes)} are left out: board all shows them)", line_width)
        )
    return "\n".join(lines)


def _flow(items: list[str], width: int, indent: str) -> list[str]:
    """``items`` as many to a line as fit in ``width``, three spaces apart; an item too long
    for a line wraps on its own."""
    out: list[str] = []
    row = ""
    for item in items:
        if row and len(row) + 3 + len(item) > width:
            out.append(row)
            row = ""
        if not row and len(indent) + len(item) > width:
            out.extend(wrap(item, width, indent, "  "))
            continue
        row = f"{row}   {item}" if row else f"{indent}{item}"
    if row:
        out.append(row)
    return out


def card_kinds(spec: GameSpec) -> list[str]:
    """The kinds of card in the game: ``card``, and every entity type declared ``deck:
    true`` (Westphalia's Commerce and Goal cards, Rise of Totalitarianism's Strategy, Crisis
    and Coup cards). A record a player only points at (a box of a track, a country) is not a
    card."""
    kinds = ["card"] if spec.ids.get("card") else []
    return kinds + [k for k in spec.data.get("deck_types", ()) if k != "card" and spec.ids.get(k)]


def card_facts(spec: GameSpec, kind: str, i: int) -> str:
    """What card ``i`` of ``kind`` is: its text, else its fixed attributes by their titles."""
    if kind == "card":
        texts = spec.data.get("text_card", ())
        return texts[i] if i < len(texts) and texts[i] else "(no card text in the rules data)"
    titles: dict[str, str] = spec.data.get("field_titles", {})
    parts = []
    prefix = f"s_e_{kind}__"
    for key in sorted(
        k for k in spec.data if k.startswith(prefix) and "__" not in k[len(prefix) :]
    ):
        attr = key[len(prefix) :]
        value = spec.data[key][i]
        ref = spec.refs.get(f"e.{kind}.{attr}")
        shown = spec.name_of(ref, value) if ref and isinstance(value, int) else _plain(value)
        parts.append(f"{titles.get(f'e.{kind}.{attr}') or attr.replace('_', ' ')}: {shown}")
    return "; ".join(parts) if parts else "(no details in the rules data)"


def option_card(spec: GameSpec, kinds: Iterable[str], oid: str) -> str | None:
    """What is on the card an option (``card:move_1``, ``strategy:c1``) names, if it names a
    card of one of ``kinds`` (of :func:`card_kinds`): :func:`card_facts`."""
    kind, _, cid = oid.partition(":")
    if kind in kinds and cid in spec.ids.get(kind, ()):
        return card_facts(spec, kind, spec.ids[kind].index(cid))
    return None


def hand_lines(V: dict[str, Any], spec: GameSpec, width: int) -> list[str]:
    """``hand``: the cards the viewer holds, each with what it is."""
    me = V.get("viewer")
    if me is None:
        return ["  Nobody's hand: this view belongs to no seat."]
    titles: dict[str, str] = spec.data.get("field_titles", {})
    kinds = card_kinds(spec)
    out = []
    for key, v in V["p"][me].items():
        path = f"p.{key}"
        kind = spec.refs.get(path)
        if kind not in kinds or key == "cards":
            continue
        name = titles.get(path) or key.replace("_", " ")
        if is_hidden(v):  # a face-down deck of yours: how many cards, not which
            out.extend(wrap(f"{name}: {_hidden(v)}", width, "  ", "  "))
            continue
        held = [x for x in (v if isinstance(v, list) else [v]) if isinstance(x, int)]
        slot = spec.layout.by_path.get(path)
        if not held or slot is None or slot.visible != "owner":
            # cards in sight of everyone (played, discarded): their names only
            names = ", ".join(spec.name_of(kind, i) for i in held) or "-"
            out.extend(wrap(f"{name}: {names}", width, "  ", "  "))
            continue
        out.append(f"  {name}:")
        for i in held:
            out.extend(wrap(f"{spec.name_of(kind, i)}: {card_facts(spec, kind, i)}", width, "    "))
    return out or ["  You hold no cards."]
