"""Play a game at the terminal, from the view of the human seat(s) only."""

from __future__ import annotations

import marshal
import sys
from typing import Any, TextIO

from .agents import make_agent
from .game import Decision, Game, undo_barrier
from .machine import GameError
from .rng import derive_seed
from .spec import GameSpec
from .view import is_hidden

__all__ = ["play", "render_view", "SEAT_KINDS"]

SEAT_KINDS = ("human", "random", "mc")

HELP = """\
Type the number or the id of an option.
  undo   take back your last decision (not past a die roll or a reveal)
  help   this text
  quit   leave the game"""


class _Names:
    """Readable names for ids, from ``spec.labels``."""

    def __init__(self, spec: GameSpec) -> None:
        self.by_id: dict[str, str] = {}
        self.by_index: dict[str, tuple[str, ...]] = {}
        for key, labels in sorted(spec.labels.items()):
            if isinstance(labels, dict):
                self.by_id.update({str(k): str(v) for k, v in labels.items()})
            else:
                self.by_index[key] = tuple(labels)

    def value(self, v: Any, fld: str = "") -> str:
        if is_hidden(v):
            n = v["hidden"]
            if n is True:
                return "hidden"
            return f"{n} hidden {'card' if n == 1 else 'cards'}"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, str):
            return self.by_id.get(v, v)
        if isinstance(v, int):
            names = self.by_index.get(fld) or self.by_index.get(_singular(fld))
            if names and 0 <= v < len(names):
                return names[v]
            return str(v)
        if isinstance(v, list):
            return ", ".join(self.value(x, _singular(fld)) for x in v) if v else "-"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k}: {self.value(x, k)}" for k, x in v.items()) + "}"
        return "-" if v is None else str(v)


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and len(word) > 1 else word


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]


def _ref_name(V: dict[str, Any], spec: GameSpec, names: _Names, kind: str, v: Any) -> str:
    """The name of a referenced player, card or entity record (``v`` is its number)."""
    if isinstance(v, list):
        return ", ".join(_ref_name(V, spec, names, kind, x) for x in v) if v else "-"
    if v is None:
        return "-"
    if is_hidden(v):
        return names.value(v)
    if not isinstance(v, int):
        return names.value(v)
    if kind == "player":
        labels = spec.scenarios[V["scenario"]].seat_labels
        return labels[v] if 0 <= v < len(labels) else str(v)
    if kind == "card":
        return names.value(v, "card")
    recs = V["e"].get(kind, [])
    return str(recs[v].get("name", recs[v].get("id", v))) if 0 <= v < len(recs) else str(v)


def render_view(V: dict[str, Any], spec: GameSpec) -> str:
    """The board as text, from a view (never from a full state)."""
    names = _Names(spec)
    labels = spec.scenarios[V["scenario"]].seat_labels
    me = V.get("viewer")
    refs = spec.refs

    def show(path: str, key: str, v: Any) -> str:
        kind = refs.get(path) or ("player" if key == "owner" else None)
        return _ref_name(V, spec, names, kind, v) if kind else names.value(v, key)

    lines = [f"== {spec.title} - turn {V['turn']} =="]
    if V["g"]:
        lines.append("  " + "   ".join(f"{k}: {show('g.' + k, k, v)}" for k, v in V["g"].items()))
    for i, pd in enumerate(V["p"]):
        who = labels[i] + (" (you)" if i == me else "")
        lines.append(f"{who}:")
        skip = {spec.card_universe, "id", "name"}
        for k, v in pd.items():
            if k not in skip:
                lines.append(f"    {k}: {show('p.' + k, k, v)}")
    for etype, recs in V["e"].items():
        if not recs:
            continue
        cols: list[str] = []
        for r in recs:
            cols.extend(c for c in r if c not in cols and c != "id")
        rows = [cols] + [[show(f"e.{etype}.{c}", c, r.get(c)) for c in cols] for r in recs]
        lines.append(f"{etype}:")
        lines.extend("    " + line for line in _table(rows))
    return "\n".join(lines)


def play(
    spec: GameSpec,
    scenario: str,
    seats: list[str],
    seed: int,
    input: TextIO | None = None,
    output: TextIO | None = None,
) -> dict[str, Any] | None:
    """Play at the terminal; ``seats`` gives "human", "random" or "mc" per seat.

    ``input``/``output`` default to ``sys.stdin``/``sys.stdout`` (read at call time).
    Returns the result, or None if a human quit.
    """
    input = sys.stdin if input is None else input
    output = sys.stdout if output is None else output
    sc = spec.scenarios[scenario]
    if len(seats) == 1:
        seats = seats * len(sc.seats)
    if len(seats) != len(sc.seats):
        raise GameError(
            f"{len(seats)} seat kinds for {len(sc.seats)} seats ({', '.join(sc.seats)})"
        )
    for kind in seats:
        if kind != "human":
            make_agent(kind, 0)
    game = Game.new(spec, scenario, seed)
    bots = {
        k: make_agent(kind, derive_seed(seed, k)) for k, kind in enumerate(seats) if kind != "human"
    }
    humans = [k for k, kind in enumerate(seats) if kind == "human"]
    labels = sc.seat_labels
    seen = {p: 0 for p in humans} if humans else {None: 0}
    history: list[tuple[int, bytes]] = []  # (player, state before their decision)
    last_human: int | None = None

    def say(text: str = "") -> None:
        print(text, file=output)

    def show_log(player: int | None) -> None:
        lines = game.log_for(player)
        for text in lines[seen[player] :]:
            say(f"  > {text}")
        seen[player] = len(lines)

    say(f"{spec.title} - {sc.title} (seed {seed})")
    while True:
        if game.finished:
            for p in seen:
                show_log(p)
            res = game.result or {}
            winners = " and ".join(labels[w] for w in res.get("winners", []))
            if res.get("tie"):
                among = f" between {winners}" if winners else ""
                say(f"Game over: a tie{among} ({res.get('reason')}).")
            else:
                say(f"Game over: {winners or 'nobody'} wins ({res.get('reason')}).")
            return res
        pending = game.pending()
        bot_turn = [d for d in pending if d.player in bots]
        if bot_turn:
            d = bot_turn[0]
            game.apply(d.player, bots[d.player].choose(game.view(d.player), d, spec))
            continue
        d = pending[0]
        if len(humans) > 1 and d.player != last_human:
            say(f"\n--- {labels[d.player]} to decide; other players look away ---")
        last_human = d.player
        say("")
        say(render_view(game.view(d.player), spec))
        show_log(d.player)
        _prompt(say, d, labels)
        while True:
            output.write(f"{labels[d.player]}> ")
            output.flush()
            line = input.readline()
            if not line:
                say("")
                say("End of input: game abandoned.")
                return None
            text = line.strip()
            if not text:
                continue
            if text in ("quit", "exit", "q"):
                say("Game abandoned.")
                return None
            if text in ("help", "?"):
                say(HELP)
                continue
            if text == "undo":
                if not history:
                    say("Nothing to undo.")
                    continue
                who, saved = history[-1]
                if who != d.player:
                    say(f"Cannot undo: {labels[who]} has decided since your last decision.")
                    continue
                before = marshal.loads(saved)
                why = undo_barrier(before, game.state)
                if why:
                    say(f"Cannot undo: {why} since your last decision.")
                    continue
                history.pop()
                game.state = before
                for p in seen:
                    seen[p] = min(seen[p], len(game.log_for(p)))
                say("Your last decision is taken back.")
                break
            option = _match(text, d)
            if option is None:
                say(f"No option {text!r}; type a number from 1 to {len(d.options)}, or help.")
                continue
            history.append((d.player, marshal.dumps(game.state)))
            game.apply(d.player, option)
            break


def _prompt(say: Any, d: Decision, labels: tuple[str, ...]) -> None:
    say(f"{labels[d.player]}: {d.prompt}")
    for n, opt in enumerate(d.options, 1):
        say(f"  {n:>2}. {opt.label}  [{opt.id}]")


def _match(text: str, d: Decision) -> str | None:
    if text.isdigit() and 1 <= int(text) <= len(d.options):
        return d.options[int(text) - 1].id
    for opt in d.options:
        if opt.id == text:
            return opt.id
    return None
