"""Board displays: the `board:` section of rules.yaml, compiled into procedures.

```yaml
board:
  combat:
    title: Combat strength now       # the heading on the board
    rules: [MOP-COMBAT-01]
    show: |                          # a program: each line it logs is a line of the board
      for c in countries:
          if contested(c):
              log "{c}: {blue} {side_total(blue, c, false)}, {orange} {side_total(orange, c, true)}"
```

Each display becomes the procedure ``board__<name>()`` (a name no rules file can declare,
since rule names have no double underscore). The checker holds it to a function's limits,
except that it logs: it changes nothing and asks nothing. Every seat's board shows it, so it
may not read a field that any player may not see (``visible: owner`` or ``none``), itself or
through the functions it calls.
"""

from __future__ import annotations

from typing import Any

from . import ir
from .diagnostics import DiagnosticSink
from .effects import Attr, Call, Name, walk

__all__ = ["add_displays", "check_displays", "PREFIX"]

#: the procedure of display ``x`` is ``board__x``
PREFIX = "board__"


def add_displays(b: Any, game: ir.Game, sink: DiagnosticSink) -> None:
    """Add the procedures of `board:` in rules.yaml to ``game``."""
    doc = b.doc("rules.yaml")
    if doc is None or not isinstance(doc.data.get("board"), dict):
        return
    for name, spec in doc.data["board"].items():
        path = ("board", name)
        body = b.program(doc, (*path, "show"), f"board display {name!r}")
        if body is None:
            continue
        game.functions[PREFIX + name] = ir.Routine(
            PREFIX + name, "procedure", [], ir.VOID, body, b.origin(doc, path, spec)
        )
        game.displays.append((name, str(spec.get("title") or name.replace("_", " "))))


def check_displays(game: ir.Game, sink: DiagnosticSink) -> None:
    """A display reads only what every player sees, itself or through what it calls."""
    for name, _title in game.displays:
        display = game.functions.get(PREFIX + name)
        if display is None:
            continue
        seen: set[str] = set()
        # (routine, the node of the display's own body that leads there)
        todo: list[tuple[ir.Routine, Any]] = [(display, None)]
        while todo:
            r, via = todo.pop()
            for node in walk(r.body):
                at = via or node
                hidden = _hidden_field(node)
                if hidden is not None:
                    through = "" if via is None else f" (through {r.name}())"
                    sink.error(
                        "board",
                        f"board display {name!r} reads {hidden!r}{through}, which not every "
                        "player may see",
                        at.pos,
                        "a display is on every seat's board: show only fields with visible: all",
                    )
                    break
                if isinstance(node, Call) and isinstance(node.ref, ir.Routine):
                    if node.ref.name not in seen:
                        seen.add(node.ref.name)
                        todo.append((node.ref, at))


def _hidden_field(node: Any) -> str | None:
    """The name of the hidden field ``node`` reads, if it reads one."""
    field = None
    if isinstance(node, Attr) and isinstance(node.ref, ir.Field):
        field = node.ref
    elif isinstance(node, Name) and isinstance(node.ref, tuple) and node.ref[0] == "global":
        field = node.ref[1]
    if field is not None and getattr(field, "visible", "all") != "all":
        return str(field.name)
    return None
