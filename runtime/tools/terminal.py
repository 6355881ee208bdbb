"""Play a game at the terminal, from the view of the human seat(s) only."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any, TextIO

from ..files import FileWriteError, write_file
from ..game import Decision, Game, undo_barrier
from ..layout import PENDING
from ..machine import GameError
from ..named import SaveError
from ..numbers import parse_int
from ..rng import derive_seed
from ..spec import GameSpec, scaled_text
from ..view import is_hidden
from .agents import make_agent

__all__ = ["play", "render_view", "SEAT_KINDS"]

SEAT_KINDS = ("human", "random", "mc", "ismcts", "trader")

HELP = """\
Type the number, the id or the name of an option (the start of a name is enough when only
one option has it).
  cards  what every card does (help CARD: one card)
  undo   take back your last decision (not past a die roll or a reveal)
  save FILE    save the whole game, every secret in it (rulecraft play --load FILE)
  export FILE  write only what you see, to share the position
  help   this text
  quit   leave the game"""


def _hidden(v: Any) -> str:
    n = v.size if hasattr(v, "size") else v["hidden"]
    if n is None or n is True:
        return "hidden"
    return f"{n} hidden {'card' if n == 1 else 'cards'}"


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


def _table(rows: list[list[str]], width: int = 76) -> list[str]:
    """Rows as aligned columns within ``width`` characters: the widest columns wrap (at
    spaces) until the table fits, a row taking as many lines as its tallest cell."""
    import textwrap

    n = len(rows[0])
    widths = [max(len(r[c]) for r in rows) for c in range(n)]
    # a column never gets narrower than its longest word: words are not cut
    least = [max((len(w) for r in rows for w in r[c].split()), default=1) for c in range(n)]
    while sum(widths) + 2 * (n - 1) > width:
        room = [c for c in range(n) if widths[c] > least[c]]
        if not room:
            # too many columns even with every cell wrapped: a block per record instead
            return _blocks(rows, width)
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


def _blocks(rows: list[list[str]], width: int) -> list[str]:
    """Each record (after the header row) as its first cell, then ``column: value`` pairs
    wrapped within ``width``."""
    import textwrap

    head, *body = rows
    out = []
    for r in body:
        pairs = "; ".join(f"{h}: {v}" for h, v in zip(head[1:], r[1:], strict=True))
        out.append(r[0])
        out.extend(textwrap.wrap(pairs, width, initial_indent="  ", subsequent_indent="  "))
    return out


def render_view(
    V: dict[str, Any],
    spec: GameSpec,
    displays: Sequence[tuple[str, list[str]]] = (),
) -> str:
    """The board as text, from a view (``Game.view(player)``; never from a full state), and
    the rules' board displays (``Game.displays(player)``: what every player may see)."""
    labels = spec.seat_labels
    me = V.get("viewer")
    refs = spec.refs

    scales: dict[str, int] = spec.data.get("field_scales", {})

    def show(path: str, key: str, v: Any) -> str:
        # a fixed field named ``owner`` is a player (as for visibility) unless declared
        kind = refs.get(path) or ("player" if key == "owner" else None)
        if path in scales and isinstance(v, int) and not isinstance(v, bool):
            return scaled_text(v, scales[path])  # a count of fractions (`scale:`)
        return _ref_name(spec, kind, v) if kind else _plain(v)

    import textwrap

    titles: dict[str, str] = spec.data.get("field_titles", {})
    internal = set(spec.data.get("internal", ()))

    def title(path: str, key: str) -> str:
        """The name players read: the field's `title:`, else its name in words."""
        return titles.get(path) or key.replace("_", " ")

    # the fixed list of cards each seat plays with (determinization's universe) is noise;
    # so is what the rules declare internal (scratch flags, counters)
    skip = {"id", "name"} | ({"cards"} if "s_p_cards" in spec.data else set())
    lines = [f"== {spec.title} - turn {V['turn']} =="]
    shown = [(k, v) for k, v in V["g"].items() if f"g.{k}" not in internal]
    # constants the rules put on the board (a victory target): shown first, by their titles
    for name, label in reversed(spec.data.get("board_constants", ())):
        shown.insert(0, (f"\x00{label}", spec.constants.get(name)))
    row = ""
    for k, v in shown:  # the globals, as many to a line as fit in 80 columns
        if k.startswith("\x00"):
            item = f"{k[1:]}: {_plain(v)}"
        else:
            item = f"{title('g.' + k, k)}: {show('g.' + k, k, v)}"
        if row and len(row) + 3 + len(item) > 78:
            lines.append(row)
            row = ""
        if not row and len(item) > 76:
            lines.extend(textwrap.wrap(item, 78, initial_indent="  ", subsequent_indent="    "))
            continue
        row = f"{row}   {item}" if row else f"  {item}"
    if row:
        lines.append(row)
    for i, pd in enumerate(V["p"]):
        who = labels[i] + (" (you)" if i == me else "")
        lines.append(f"{who}:")
        for k, v in pd.items():
            if k not in skip and f"p.{k}" not in internal:
                item = f"{title('p.' + k, k)}: {show('p.' + k, k, v)}"
                lines.extend(
                    textwrap.wrap(item, 78, initial_indent="    ", subsequent_indent="      ")
                )
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
        heads = [title(f"e.{etype}.{c}", c) for c in cols]
        rows = [heads] + [[show(f"e.{etype}.{c}", c, r.get(c)) for c in cols] for r in recs]
        lines.append(f"{etype}:")
        lines.extend("    " + line for line in _table(rows))
    if V.get("fog"):
        lines.append("in the fog of war:")
        lines.extend(f"    {line}" for line in V["fog"])
    for heading, shown_lines in displays:
        if not shown_lines:
            continue
        lines.append(f"{heading}:")
        for line in shown_lines:
            ind = "    " + " " * (len(line) - len(line.lstrip()))
            lines.extend(
                textwrap.wrap(line.strip(), 78, initial_indent=ind, subsequent_indent=ind + "  ")
            )
    return "\n".join(lines)


def play(
    spec: GameSpec,
    scenario: str,
    seats: list[str],
    seed: int,
    input: TextIO | None = None,
    output: TextIO | None = None,
    auto: bool | None = None,
    start: Game | None = None,
) -> dict[str, Any] | None:
    """Play at the terminal; ``seats`` gives "human", "human:NAME" or an agent's name
    (:func:`~.agents.make_agent`: "random", "mc", "mc:PLAYOUTS", "ismcts", "ismcts:2s",
    "trader", ...) per seat (one kind: every seat). Seats of the same "human:NAME" are one
    person: when the person changes, the screen is cleared and the game waits for Enter ("pass
    to ...") before it shows the next person's view.

    ``auto``: a human decision with a single option is answered at once (said in one line);
    by default on when bots play, off when only humans do.

    ``input``/``output`` default to ``sys.stdin``/``sys.stdout`` (read at call time).
    ``start``: a game to go on with (a loaded save) instead of a new one; ``seed`` is then
    the one it was saved with (the bots' seeds come from it). ``save FILE`` writes the
    seats with the game (``Game.seat_kinds``), so that ``--load`` seats the same people and
    bots. Returns the result, or None if a human quit.
    """
    input = sys.stdin if input is None else input
    output = sys.stdout if output is None else output
    if input is None or input.closed:
        raise GameError("standard input is closed: play needs a terminal, or moves piped in")
    game = start if start is not None else Game.new(spec, scenario, seed)
    spec = game.spec  # the scenario's own spec
    if len(seats) == 1:
        seats = seats * len(spec.seats)
    if len(seats) != len(spec.seats):
        raise GameError(
            f"{len(seats)} seat kinds for {len(spec.seats)} seats ({', '.join(spec.seats)})"
        )
    game.seat_kinds = tuple(seats)  # written with a save (undo's copies keep it)
    is_human = [kind == "human" or kind.startswith("human:") for kind in seats]
    bots = {
        k: make_agent(kind, derive_seed(seed, k)) for k, kind in enumerate(seats) if not is_human[k]
    }
    humans = [k for k in range(len(seats)) if is_human[k]]
    if auto is None:
        auto = bool(bots)
    #: who sits at each human seat: a name given with human:NAME, else the seat itself
    person = {k: seats[k].partition(":")[2] or spec.seats[k] for k in humans}
    labels = spec.seat_labels
    seen = {p: 0 for p in humans} if humans else {None: 0}
    history: list[tuple[int, Game]] = []  # (player, the game before their decision)
    last_human: int | None = None

    def say(text: str = "") -> None:
        print(text, file=output)

    def clear() -> None:
        """Clear a real screen (a script or a pipe gets a blank line instead)."""
        if getattr(output, "isatty", lambda: False)():
            output.write("\033[2J\033[H")
        else:
            say("")

    def show_log(player: int | None) -> None:
        lines = game.log_for(player)
        for text in lines[seen[player] :]:
            say(f"  > {text}")
        seen[player] = len(lines)

    say(f"{spec.title} - {spec.scenario_title} (seed {seed})")
    while True:
        if game.finished:
            for p in seen:
                show_log(p)
            res = game.result or {}
            winners = " and ".join(labels[w] for w in res.get("winners", []))
            if res.get("tie"):
                among = f" between {winners}" if winners else ""
                say(f"Game over: a tie{among} ({res.get('reason')}).")
            elif len(res.get("winners", [])) > 1:
                say(f"Game over: {winners} share the victory ({res.get('reason')}).")
            elif not res.get("winners"):
                say(f"Game over: nobody wins, all share in defeat ({res.get('reason')}).")
            else:
                say(f"Game over: {winners} wins ({res.get('reason')}).")
            return res
        pending = game.pending()
        bot_turn = [d for d in pending if d.player in bots]
        if _secret(game) and any(d.player not in bots for d in pending):
            bot_turn = []  # a secret pick: the people first, so that theirs can be taken back
        if bot_turn:
            d = bot_turn[0]
            bot = bots[d.player]
            view = game.view_state(d.player) if getattr(bot, "needs_view", True) else None
            game.apply(d.player, bot.choose(view, d, game.spec))
            continue
        d = next(q for q in pending if q.player not in bots)
        if auto and len(d.options) == 1:
            only = d.options[0]
            say(f"  {labels[d.player]}: {d.prompt} - {only.label} (the only option)")
            game.apply(d.player, only.id)
            continue
        if len(set(person.values())) > 1 and (
            last_human is None or person[d.player] != person[last_human]
        ):
            who = labels[d.player]
            if person[d.player] != spec.seats[d.player]:
                who = f"{person[d.player]} ({who})"
            if last_human is not None:
                # hot seat: the last person's screen goes before the next one sits down
                clear()
                output.write(f"--- Pass to {who} and press Enter ---")
                output.flush()
                if not _read(input):
                    say("")
                    say("End of input: game abandoned.")
                    return None
                clear()
            say(f"\n--- {who} to decide; other players look away ---")
        last_human = d.player
        say("")
        say(render_view(game.view(d.player), game.spec, game.displays(d.player)))
        show_log(d.player)
        _prompt(say, d, labels, game)
        while True:
            output.write(f"{labels[d.player]}> ")
            output.flush()
            line = _read(input)
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
            if text == "cards" or text.startswith("help "):
                for row in _card_help(game.spec, text[5:].strip() if text != "cards" else ""):
                    say(row)
                continue
            if text.split()[0] in ("save", "export"):
                say(_save(game, d.player, text))
                continue
            if text == "facts" and d.kind == "report":
                for row in _facts(game, d):
                    say(row)
                continue
            if d.kind == "propose" and text.split()[0] in ("offers", "goods"):
                for row in _offer_help(game, d, text):
                    say(row)
                continue
            if text == "undo":
                if not any(p == d.player for p, _ in history):
                    say("Nothing to undo.")
                    continue
                who, before = history[-1]
                if who != d.player:
                    say(f"Cannot undo: {labels[who]} has decided since your last decision.")
                    continue
                why = undo_barrier(before, game)
                if why:
                    say(f"Cannot undo: {why} since your last decision.")
                    continue
                history.pop()
                game = before
                for p in seen:
                    seen[p] = min(seen[p], len(game.log_for(p)))
                say("Your last decision is taken back.")
                break
            option = _match(text, d, game)
            if option is None and d.kind == "propose":
                say(f"Offer refused: {_offer_refusal(game, d, text)}")
                continue
            if option is None and _card_named(game.spec, text) is not None:
                say(_not_offered(game.spec, _card_named(game.spec, text)))
                continue
            if option is None:
                if d.kind == "allocate":
                    say(f"No allocation {text!r}; type target=points ... (see above), or none.")
                else:
                    shown = text if len(text) <= 40 else text[:40] + "..."
                    say(f"No option {shown!r}; type a number from 1 to {len(d.options)}, or help.")
                continue
            history.append((d.player, game.clone()))
            secret = _secret(game)
            game.apply(d.player, option)
            if secret and any(q.player in bots for q in game.pending()):
                # the bots pick next and everything is revealed: the last chance to take it back
                output.write(
                    "  Your pick stays secret until everyone has picked. "
                    "Enter to go on, or undo to take it back: "
                )
                output.flush()
                if _read(input).strip() == "undo":
                    game = history.pop()[1]
                    say("Your pick is taken back.")
            break


def _secret(game: Any) -> bool:
    """Whether the game waits for a simultaneous secret decision."""
    pending = game.raw[PENDING]
    return bool(pending) and game.spec.sites[pending[0][1]].simultaneous


def _save(game: Game, player: int, text: str) -> str:
    """``save FILE`` (the whole game) or ``export FILE`` (what ``player`` sees)."""
    what, _, path = text.partition(" ")
    path = path.strip()
    if not path:
        return (
            "Write save FILE (the whole game, every secret in it; go on with rulecraft play "
            "--load FILE) or export FILE (only what you see, to share the position)."
        )
    try:
        write_file(path, game.to_json() if what == "save" else game.export(player))
    except FileWriteError as exc:
        return f"Not written: {exc}"
    except SaveError as exc:  # a game edited by hand (tests) has no decisions to save
        return f"Not saved: {exc}"
    if what == "save":
        return f"Saved to {path} (every secret is in it: go on with rulecraft play --load {path})."
    return f"Exported what you see to {path}."


def _number(text: str) -> int | None:
    """A number a player typed: ASCII digits only, at most nine of them; None for anything
    else."""
    return parse_int(text, digits=9)


def _read(input: TextIO) -> str:
    """A line of input; "" at its end, or when it cannot be read (closed, not text)."""
    try:
        return input.readline()
    except (OSError, ValueError, UnicodeDecodeError):
        return ""


def _split_of(game: Any, d: Decision) -> tuple[Any, str]:
    """The options of a pending allocation and the kind of its targets."""
    for raw in game.raw[PENDING] or ():
        if raw[0] == d.player:
            return raw[2], game.spec.sites[raw[1]].options[6:]
    raise GameError("no allocation pending")


def _prompt(say: Any, d: Decision, labels: tuple[str, ...], game: Any) -> None:
    say(f"{labels[d.player]}: {d.prompt}")
    if d.kind == "allocate":
        split, kind = _split_of(game, d)
        spec = game.spec
        say(f"  Split up to {split.points} points, at most {split.max_each} on one, over:")
        for t in split.targets:
            name = spec.split_label(kind, (t,), game.raw).rsplit(" ", 1)[0]
            say(f"    {spec.target_id(kind, t):<24} {name}")
        say("  Type target=points for each target you give points to, e.g.")
        example = " ".join(f"{spec.target_id(kind, t)}=1" for t in split.targets[:2])
        say(f"    {example}")
        say("  (a unique part of a target's id is enough), or none to place nothing.")
        return
    if d.kind == "propose":
        n = len(d.options) - 1
        say(f"  {n} small deals can be listed (type offers, or offers 2 for page 2).")
        say("  Make an offer: one item or more, separated by ';', each good:giver>receiver=amount,")
        say("  e.g. " + _offer_example(game, d))
        say("  (type goods to list the goods), or pass.")
        return
    if d.kind == "yes-no":
        offer = _offer_to_answer(game, d.player)
        if offer:
            say(f"  The offer: {offer}")
    if d.kind == "report":
        say(
            "  Type what changed on the board as fact=value, e.g. "
            + ", ".join(_fact_examples(game))
        )
        say("  (type facts to list every fact and its value), or done if nothing changed.")
        return
    for n, opt in enumerate(d.options, 1):
        say(f"  {n:>2}. {opt.label}  [{opt.id}]")


def _facts(game: Any, d: Decision) -> list[str]:
    """Every fact the pending report may change, with its value now."""
    for raw in game.raw[PENDING] or ():
        if raw[0] == d.player:
            spec = game.spec
            out = []
            for k, _values, now in raw[2].facts:
                slot, i = spec.fact_at(k)
                where = spec.report_id((k, now))[7:]
                out.append(f"  {where:<40} {spec.report_label((k, now), game.raw)}")
            return out
    return []


def _fact_examples(game: Any) -> list[str]:
    for raw in game.raw[PENDING] or ():
        changes = raw[2]
        return [game.spec.report_id(changes[i])[7:] for i in (0, len(changes) - 1)]
    return []


def _offer_to_answer(game: Any, player: int) -> str:
    from ..deals import label
    from .agents import offer_in

    deal = offer_in(game.view_state(player), player)
    return "" if deal is None else label(game.spec, deal, game.raw)


def _offer_example(game: Any, d: Decision) -> str:
    if len(d.options) > 1:
        return d.options[0].id[6:]
    return "units:<giver>><receiver>=2"


def _offer_help(game: Any, d: Decision, text: str) -> list[str]:
    """``goods``: the goods of the game; ``offers [page]``: a page of the listed deals."""
    spec = game.spec
    if text.split()[0] == "goods":
        out = ["  Goods (good: what it is):"]
        for name, title, shape, ref, why in spec.engine.deal_goods:
            how = {"amount": "=<how many>", "pick": f"=<{ref} id>", "flag": ""}[shape]
            syntax = f"{name}:<giver>><receiver>{how}"
            out.append(f"    {syntax:<44} {title}" + (f" ({why})" if why else ""))
        return out
    parts = text.split()
    page = (_number(parts[1]) if len(parts) > 1 else None) or 1
    size = 20
    n = len(d.options) - 1
    first = (page - 1) * size
    out = [f"  Deals {first + 1}-{min(n, first + size)} of {n}:"]
    for i in range(first, min(n, first + size)):
        opt = d.options[i]
        out.append(f"    {opt.id[6:]:<48} {opt.label}")
    return out


def _as_offer(text: str) -> str:
    """A typed offer as an option id (``units:a>b=2`` or ``offer:units:a>b=2``)."""
    return text if text.startswith("offer:") else "offer:" + text.replace(" ", "")


def _offer_refusal(game: Any, d: Decision, text: str) -> str:
    option = _as_offer(text)
    for raw in game.raw[PENDING] or ():
        if raw[0] == d.player:
            return game.spec.why_refused(raw, option, game.raw) or "not an offer"
    return "not an offer"


def _match(text: str, d: Decision, game: Any = None) -> str | None:
    if d.kind == "propose" and game is not None:
        if text in ("pass", "none"):
            return "pass"
        option = _as_offer(text)
        return option if game.is_legal(d.player, option) else None
    if d.kind == "allocate" and game is not None:
        return _allocation(text, d, game)
    if d.kind == "report" and game is not None:
        option = (
            text if text in ("done", "none") or text.startswith("report:") else "report:" + text
        )
        option = "done" if option == "none" else option
        return option if game.is_legal(d.player, option) else None
    k = _number(text)
    if k is not None and 1 <= k <= len(d.options):
        return d.options[k - 1].id
    for opt in d.options:
        if opt.id == text:
            return opt.id
    return _by_name(text, d)


def _card_named(spec: GameSpec, text: str) -> int | None:
    """The card whose id or name is ``text`` (any case), if one is."""
    want = text.strip().lower()
    for i, cid in enumerate(spec.ids.get("card", ())):
        if want in (cid.lower(), spec.name_of("card", i).lower()):
            return i
    return None


def _card_help(spec: GameSpec, name: str) -> list[str]:
    """``cards``: every card's text; ``help CARD``: one card's."""
    import textwrap

    texts = spec.data.get("text_card", ())
    which = range(len(spec.ids.get("card", ())))
    if name:
        c = _card_named(spec, name)
        if c is None:
            return [f"No card {name!r}; type cards to list them."]
        which = range(c, c + 1)
    out = []
    for c in which:
        text = texts[c] if c < len(texts) and texts[c] else "(no card text in the rules data)"
        out += textwrap.wrap(
            f"{spec.name_of('card', c)}: {text}", 78, initial_indent="  ", subsequent_indent="    "
        )
    return out


def _not_offered(spec: GameSpec, c: int) -> str:
    """Why card ``c`` is not among the options, in the rules' words where they give them."""
    why = spec.data.get("unplayable_card", ())
    name = spec.name_of("card", c)
    if c < len(why) and why[c]:
        return f"{name} is not offered now: {why[c]}."
    return f"{name} is not one of the options now."


def _by_name(text: str, d: Decision) -> str | None:
    """The option a label names (any case), or the only one whose label or id (without its
    ``kind:``) starts with ``text``: ``brandenburg``, ``Bran``, ``march``."""
    want = text.strip().lower()
    if not want:
        return None
    names = [
        (opt.id, opt.label.lower(), opt.id.partition(":")[2].lower() or opt.id.lower())
        for opt in d.options
    ]
    exact = [oid for oid, label, short in names if want in (label, short)]
    if len(exact) == 1:
        return exact[0]
    starts = {
        oid for oid, label, short in names if label.startswith(want) or short.startswith(want)
    }
    return next(iter(starts)) if len(starts) == 1 else None


def _allocation(text: str, d: Decision, game: Any) -> str | None:
    """``bulgaria=2 greece=1`` (or an ``alloc:`` id) as the id of a legal allocation."""
    if text.startswith("alloc:"):
        return text if game.is_legal(d.player, text) else None
    if text in ("none", "nothing", "0"):
        return "alloc:none"
    split, kind = _split_of(game, d)
    ids = [game.spec.target_id(kind, t) for t in split.targets]
    counts: dict[str, int] = {}
    for part in text.replace(",", " ").split():
        name, eq, n = part.partition("=")
        points = _number(n)
        if not eq or points is None:
            return None
        found = [i for i in ids if i == name] or [i for i in ids if name in i]
        if len(found) != 1 or found[0] in counts:
            return None
        if points:
            counts[found[0]] = points
    parts = [f"{i}={counts[i]}" for i in ids if i in counts]
    option = "alloc:" + (",".join(parts) if parts else "none")
    return option if game.is_legal(d.player, option) else None
