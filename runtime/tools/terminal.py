"""Play a game at the terminal, from the view of the human seat(s) only.

After a decision the screen shows what changed (the new log lines) and the next prompt, not
the whole board: the board is shown once at the start of each turn, and on request
(``board``, ``log``, ``hand``). Text is wrapped at word boundaries to the terminal's width."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from ..files import FileWriteError, write_file
from ..game import Decision, Game, undo_barrier
from ..layout import PENDING, STACK, STEPS
from ..machine import GameError
from ..named import SaveError
from ..rng import derive_seed
from ..spec import GameSpec
from . import reading
from .agents import make_agent
from .board import (
    card_facts,
    card_kinds,
    hand_lines,
    option_card,
    render_view,
    screen_width,
    wrap,
)
from .text_map import has_map, map_lines

__all__ = ["play", "render_view", "SEAT_KINDS"]

SEAT_KINDS = ("human", "random", "mc", "ismcts", "trader")

HELP = """\
Type the number, the id or the name of an option (the start of a name is enough
when only one option has it).
  board  the board (board all: every row, even those holding nothing)
  log    the last 20 lines of the log (log 50, log all)
  hand   the cards you hold (cards: every card of the game; help CARD: one card)
  undo   take back your last decision (not past a die roll or a reveal)
  save FILE    save the whole game, every secret in it (rulecraft play --load FILE)
  export FILE  write only what you see, to share the position
  help   this text
  quit   leave the game (it offers to save it first)"""
#: a line of HELP in a game with a hex board
MAP_HELP = "  map    the hexes near your forces (map all, map HEX: around a hex)\n"


def _is_tty(stream: Any) -> bool:
    try:
        return bool(getattr(stream, "isatty", lambda: False)())
    except (OSError, ValueError):
        return False


def play(
    spec: GameSpec,
    scenario: str,
    seats: list[str],
    seed: int,
    input: TextIO | None = None,
    output: TextIO | None = None,
    auto: bool | None = None,
    start: Game | None = None,
    save_to: str | None = None,
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
    the one it was saved with. A bot's generator is seeded afresh at each of its decisions
    from ``seed``, its seat and the number of decisions taken, so a loaded game goes on
    exactly as it would have. ``save FILE`` writes the seats with the game
    (``Game.seat_kinds``), so that ``--load`` seats the same people and bots.

    ``save_to``: where the game is saved when a person leaves: ``quit`` offers to save it
    there (or to another file), and at the end of the input it is saved there without
    asking. Returns the result, or None if a human quit.
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
    for k, kind in enumerate(seats):
        if not is_human[k]:
            make_agent(kind, 0)  # a bad name is refused before the game starts
    bots = {k for k in range(len(seats)) if not is_human[k]}
    humans = [k for k in range(len(seats)) if is_human[k]]
    if auto is None:
        auto = bool(bots)
    #: who sits at each human seat: a name given with human:NAME, else the seat itself
    person = {k: seats[k].partition(":")[2] or spec.seats[k] for k in humans}
    labels = spec.seat_labels
    seen = {p: 0 for p in humans} if humans else {None: 0}
    if start is not None:  # a game going on: the last lines of its log, not all of it
        for p in seen:
            seen[p] = max(0, len(game.log_for(p)) - 12)
    at_step: dict[int, int | None] = {}  # the step of the flow of each seat's last decision
    board_turn: dict[str, int] = {}
    #: the log lines a seat's person has read for another of their seats, not yet for it
    told: dict[int, list[str]] = {}  # the turn each person last saw the board at
    history: list[tuple[int, Game]] = []  # (player, the game before their decision)
    last_human: int | None = None
    echo = ""  # what the last person committed in secret, said before the screen passes
    live = _is_tty(input) and _is_tty(output)

    def say(text: str = "") -> None:
        """A line or more, wrapped at spaces to the width of a terminal (a pipe or a file
        gets them whole)."""
        width = screen_width() - 1 if _is_tty(output) else 1 << 30
        for line in text.split("\n"):
            if len(line) <= width:
                print(line, file=output)
            else:
                for part in wrap(line, width, "", "    "):
                    print(part, file=output)

    def clear() -> None:
        """Clear a real screen (a script or a pipe gets a blank line instead)."""
        if _is_tty(output):
            output.write("\033[2J\033[H")
        else:
            say("")

    def show_log(player: int | None) -> None:
        """The log lines ``player`` has not seen yet: what changed. On a live terminal a
        long run of them pauses a screen at a time."""
        lines = game.log_for(player)
        new = lines[seen[player] :]
        seen[player] = len(lines)
        if player is not None and player in person:
            # a person at several seats reads a line all of them read once: a line shown
            # for one seat waits in the others' lists, and is skipped when it comes for them
            mine = told.setdefault(player, [])
            fresh = []
            for text in new:
                if text in mine:
                    mine.remove(text)
                else:
                    fresh.append(text)
            for q in person:
                if q != player and person[q] == person[player]:
                    told[q] = (told.get(q, []) + fresh)[-400:]
            new = fresh
        page = max(8, _height() - 8)
        for n, text in enumerate(new):
            if live and n and n % page == 0 and len(new) - n > 2:
                output.write(f"  -- {len(new) - n} more lines: Enter, or s to skip them -- ")
                output.flush()
                if _read(input).strip() == "s":
                    say(f"  ({len(new) - n} lines skipped: log shows them)")
                    return
            say(f"  > {text}")

    def leave(why: str) -> None:
        """Quit (``why`` "quit") or the end of the input ("eof"): save where asked."""
        if save_to is None:
            say("Game abandoned." if why == "quit" else "\nEnd of input: game abandoned.")
            return
        path = save_to
        if why == "quit":
            say(f"Save the game first? Enter saves it to {save_to}.")
            output.write("Or type another file name, or no: ")
            output.flush()
            answer = _read(input)
            if answer.strip().lower() in ("no", "n"):
                say("Game abandoned, not saved.")
                return
            path = answer.strip() or save_to
        else:
            say("")
            say("End of input.")
        said = _save(game, None, f"save {path}")
        if said.startswith("Saved"):
            say(
                f"Game saved to {path}: go on with rulecraft play {spec.game}/{spec.scenario} "
                f"--load {path}"
            )
        else:
            say(said)

    def think(d: Decision) -> str:
        """A bot's decision; on a live screen a line says it is thinking, with the time."""
        kind = seats[d.player]
        bot = make_agent(kind, derive_seed(derive_seed(seed, d.player), game.raw[STEPS]))
        view = game.view_state(d.player) if getattr(bot, "needs_view", True) else None
        if not _is_tty(output):
            return str(bot.choose(view, d, game.spec))
        return _thinking(
            output,
            labels[d.player],
            getattr(bot, "seconds", None),
            lambda: bot.choose(view, d, game.spec),
        )

    say(f"{spec.title} - {spec.scenario_title} (seed {seed})")
    if start is not None:
        said = f"going on after {game.raw[STEPS]} decisions; log all shows the whole log"
        say(f"  ({said})")
    while True:
        if game.finished:
            for p in seen:
                show_log(p)
            say(_game_over(game.result or {}, labels))
            return game.result or {}
        pending = game.pending()
        bot_turn = [d for d in pending if d.player in bots]
        if _secret(game) and any(d.player not in bots for d in pending):
            bot_turn = []  # a secret pick: the people first, so that theirs can be taken back
        if bot_turn:
            d = bot_turn[0]
            game.apply(d.player, think(d))
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
                if echo:
                    say(echo)
                output.write(f"--- Pass to {who} and press Enter ---")
                output.flush()
                if not _read(input):
                    leave("eof")
                    return None
                clear()
            say(f"\n--- {who} to decide; other players look away ---")
        echo = ""
        last_human = d.player
        if board_turn.get(person[d.player]) != game.turn:
            board_turn[person[d.player]] = game.turn
            say("")
            say(_board(game, d.player))
        step = _step_at(game)
        ran = _steps_between(spec, at_step.get(d.player), step)
        at_step[d.player] = step
        if len(ran) > 1:  # several steps ran without asking anyone here: name them
            say(f"  ({len(ran)} steps ran since your last decision: {', '.join(ran)})")
        show_log(d.player)
        _prompt(say, d, labels, game)
        while True:
            output.write(f"{labels[d.player]}> ")
            output.flush()
            line = _read(input)
            if not line:
                leave("eof")
                return None
            text = line.strip()
            if not text:
                continue
            if text in ("quit", "exit", "q"):
                leave("quit")
                return None
            said = _command(text, game, d)
            if said is not None:
                say(said)
                continue
            if text == "undo":
                if not any(p == d.player for p, _ in history):
                    say("Nothing to undo.")
                    continue
                who_p, before = history[-1]
                if who_p != d.player:
                    say(f"Cannot undo: {labels[who_p]} has decided since your last decision.")
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
            option = reading.match(text, d, game)
            if option is None and d.kind == "propose":
                say(f"Offer refused: {reading.offer_refusal(game, d, text)}")
                continue
            if option is None:
                say(reading.why_not(text, d, game))
                continue
            history.append((d.player, game.clone()))
            secret = _secret(game)
            chose = _label_of(game, d, option)
            game.apply(d.player, option)
            if secret:
                echo = f"  {labels[d.player]}, your secret pick: {chose} ({d.prompt})."
            if secret and any(q.player in bots for q in game.pending()):
                # the bots pick next and everything is revealed: the last chance to take it back
                say(echo + " It stays secret until everyone has picked.")
                output.write("  Enter to go on, or undo to take it back: ")
                output.flush()
                if _read(input).strip() == "undo":
                    game = history.pop()[1]
                    echo = ""
                    say("Your pick is taken back.")
            elif secret:
                say(echo + " It stays hidden until everyone has picked.")
            break


def _step_at(game: Game) -> int | None:
    """The step of the flow the game waits in (its place in ``spec.data["flow"]``), read
    from the frame of the flow's main routine at the bottom of the stack."""
    node, frame = game.raw[STACK], None
    while node:
        frame, node = node
    if not frame or frame[0] != 0 or len(frame) < 3 or not isinstance(frame[2], int):
        return None
    return frame[2] - 1


def _steps_between(spec: GameSpec, was: int | None, now: int | None) -> list[str]:
    """The steps of the flow that ran whole between a decision in step ``was`` and one in
    step ``now``, by their names in words (a new turn goes round from the loop's start)."""
    flow = spec.data.get("flow") or ()
    loop = spec.data.get("flow_loop") or 0
    if was is None or now is None or was == now or not flow:
        return []
    out, k = [], was + 1
    for _ in range(len(flow)):
        if k >= len(flow):
            k = loop
        if k == now:
            break
        if flow[k] is not None:
            out.append(flow[k].partition("__")[2].replace("_", " ").capitalize())
        k += 1
    return out


def _height() -> int:
    import shutil

    return shutil.get_terminal_size((80, 40)).lines


def _thinking(output: TextIO, who: str, budget: float | None, choose: Callable[[], Any]) -> str:
    """``choose()`` while a line says that ``who`` is thinking, with the seconds passed (and
    the budget of a bot that has one); the line is wiped when the bot has decided."""
    done = threading.Event()
    began = time.monotonic()

    def tick() -> None:
        while not done.wait(0.5):
            spent = time.monotonic() - began
            of = f" of {budget:g}" if budget else ""
            output.write(f"\r  {who} is thinking... {spent:.0f}{of} s ")
            output.flush()

    t = threading.Thread(target=tick, daemon=True)
    t.start()
    try:
        return str(choose())
    finally:
        done.set()
        t.join()
        if time.monotonic() - began >= 0.5:
            output.write("\r\033[K")
            output.flush()


def _game_over(res: dict[str, Any], labels: tuple[str, ...]) -> str:
    winners = " and ".join(labels[w] for w in res.get("winners", []))
    if res.get("tie"):
        among = f" between {winners}" if winners else ""
        return f"Game over: a tie{among} ({res.get('reason')})."
    if len(res.get("winners", [])) > 1:
        return f"Game over: {winners} share the victory ({res.get('reason')})."
    if not res.get("winners"):
        return f"Game over: nobody wins, all share in defeat ({res.get('reason')})."
    return f"Game over: {winners} wins ({res.get('reason')})."


def _board(game: Game, player: int, full: bool = False) -> str:
    return render_view(
        game.view(player),
        game.spec,
        game.displays(player),
        compact=not full,
        width=screen_width(),
    )


def _label_of(game: Game, d: Decision, option: str) -> str:
    """How the option a player chose reads (an offer or a report: its id)."""
    if d.kind == "allocate":
        split, kind = reading.split_of(game, d)
        value = game.spec.parse_split(split, kind, option)
        if value is not None:
            return game.spec.split_label(kind, value, game.raw)
    if d.kind in ("allocate", "propose", "report"):
        return option.partition(":")[2] or option
    return next((o.label for o in d.options if o.id == option), option)


def _command(text: str, game: Game, d: Decision) -> str | None:
    """What a command typed at the prompt prints, or None if ``text`` is no command."""
    word, _, rest = text.partition(" ")
    rest = rest.strip()
    width = screen_width() - 1
    if text in ("help", "?"):
        return HELP.replace("  undo", MAP_HELP + "  undo") if has_map(game.spec) else HELP
    if word == "map":
        return "\n".join(map_lines(game.spec, game.view_state(d.player), width, rest))
    if word == "board" and rest in ("", "all"):
        return _board(game, d.player, full=rest == "all")
    if word == "log" and (rest in ("", "all") or reading.number(rest) is not None):
        lines = game.log_for(d.player)
        n = len(lines) if rest == "all" else (reading.number(rest) or 20)
        shown = lines[-n:] if n else []
        head = f"  (the last {len(shown)} of {len(lines)} log lines)"
        return "\n".join([head] + [f"  > {t}" for t in shown])
    if text == "hand":
        return "\n".join(hand_lines(game.view(d.player), game.spec, width))
    if text == "cards" or word == "help" and rest:
        return "\n".join(_card_help(game, d.player, rest if word == "help" else "", width))
    if word in ("save", "export"):
        return _save(game, d.player, text)
    if text == "facts" and d.kind == "report":
        return "\n".join(_facts(game, d))
    if d.kind == "propose" and word in ("offers", "goods"):
        return "\n".join(_offer_help(game, d, text))
    return None


def _secret(game: Any) -> bool:
    """Whether the game waits for a simultaneous secret decision."""
    pending = game.raw[PENDING]
    return bool(pending) and game.spec.sites[pending[0][1]].simultaneous


def _save(game: Game, player: int | None, text: str) -> str:
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


def _read(input: TextIO) -> str:
    """A line of input; "" at its end, or when it cannot be read (closed, not text)."""
    try:
        return input.readline()
    except (OSError, ValueError, UnicodeDecodeError):
        return ""


def _prompt(say: Any, d: Decision, labels: tuple[str, ...], game: Any) -> None:
    say(f"{labels[d.player]}: {d.prompt}")
    if d.kind == "allocate":
        split, kind = reading.split_of(game, d)
        spec = game.spec
        say(f"  Split up to {split.points} points, at most {split.max_each} on one, over:")
        ids = [spec.target_id(kind, t) for t in split.targets]
        cut = len(reading.common_prefix(ids))
        for t, tid in zip(split.targets, ids, strict=True):
            name = spec.split_label(kind, (t,), game.raw).rsplit(" ", 1)[0]
            say(f"    {tid[cut:]:<24} {name}")
        say("  Type target=points for each target you give points to, e.g.")
        say("    " + " ".join(f"{tid[cut:]}=1" for tid in ids[:2]))
        say("  (a unique part of a target's id is enough), or none to place nothing.")
        return
    if d.kind == "propose":
        n = len(d.options) - 1
        say(f"  {n} small deals possible: offers lists them, yours first; goods the goods.")
        say("  Offer items separated by ';', each good:giver>receiver=amount, or pass;")
        say("  e.g. " + _offer_example(game, d))
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
    if reading.values_are_numbers(d):
        # the options are numbers: they are typed as themselves, never by a place in a list
        say("  Type one of: " + ", ".join(o.label for o in d.options))
        return
    kinds = set(card_kinds(game.spec)) - {"card"}
    for n, opt in enumerate(d.options, 1):
        say(f"  {n:>2}. {opt.label}  [{opt.id}]")
        facts = option_card(game.spec, kinds, opt.id)
        if facts is not None:  # a card that is a record: what is on it, under its name
            say(f"        {facts}")


def _facts(game: Any, d: Decision) -> list[str]:
    """Every fact the pending report may change, with its value now."""
    for raw in game.raw[PENDING] or ():
        if raw[0] == d.player:
            spec = game.spec
            out = []
            for k, _values, now in raw[2].facts:
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
    """``goods``: the goods of the game; ``offers [WORD] [page]``: the deals that can be
    listed, those the deciding player gives or receives in first (the rest after), and
    among them those that name ``WORD`` (a good or a player) if one is given."""
    spec = game.spec
    if text.split()[0] == "goods":
        out = ["  Goods (good: what it is):"]
        for name, title, shape, ref, why in spec.engine.deal_goods:
            how = {"amount": "=<how many>", "pick": f"=<{ref} id>", "flag": ""}[shape]
            syntax = f"{name}:<giver>><receiver>{how}"
            out.append(f"    {syntax:<44} {title}" + (f" ({why})" if why else ""))
        return out
    parts = text.split()[1:]
    page = 1
    if parts and reading.number(parts[-1]) is not None:
        page = reading.number(parts.pop()) or 1
    word = " ".join(parts).lower()
    me = spec.seats[d.player].lower()
    n = len(d.options) - 1
    # deals that differ only in an amount are one row: units:austria>spain=1..6
    groups: dict[str, list[Any]] = {}
    for i in range(min(n, 20000)):
        opt = d.options[i]
        if word and word not in opt.id.lower() and word not in opt.label.lower():
            continue
        head, eq, amount = opt.id[6:].rpartition("=")
        key = head if eq and ";" not in opt.id else opt.id[6:]
        groups.setdefault(key, []).append((i, opt, amount))
    # relevance: a deal that names you first, then the simpler deals, then the rules' order
    rows = sorted(groups.items(), key=lambda kv: (me not in kv[0], kv[0].count(";"), kv[1][0][0]))
    size = 20
    first = (page - 1) * size
    which = f" naming {word!r}" if word else ""
    count = sum(len(v) for v in groups.values())
    out = [
        f"  {count} deals{which}{f' (of {n})' if word else ''} in {len(rows)} rows, "
        "those naming you first "
        f"(rows {first + 1}-{min(len(rows), first + size)}; offers WORD narrows them, "
        f"offers {page + 1} shows the next):"
    ]
    for key, items in rows[first : first + size]:
        if len(items) == 1:
            out.append(f"    {items[0][1].id[6:]:<34} {items[0][1].label}")
        elif all(a.isdigit() for _i, _o, a in items):
            last = items[-1][1]
            amounts = f"{items[0][2]}..{items[-1][2]}"
            out.append(f"    {key + '=' + amounts:<34} up to: {last.label}")
        else:
            out.append(f"    {key}=... one of: {', '.join(a for _i, _o, a in items)}")
    return out


def _card_help(game: Game, player: int, name: str, width: int) -> list[str]:
    """``cards``: every card's text (or, in a game whose cards are records, the cards you
    hold and then every card); ``help CARD``: one card's."""
    spec = game.spec
    kinds = card_kinds(spec)
    if not kinds:
        return ["  This game has no cards."]
    which = [(k, i) for k in kinds for i in range(len(spec.ids.get(k, ())))]
    if name:
        want = name.strip().lower()
        exact = [
            (k, i) for k, i in which if want in (spec.ids[k][i].lower(), spec.name_of(k, i).lower())
        ]
        # else the card whose name starts with the word(s) typed: "CR#2" for "CR#2 Crisis card"
        which = exact or [
            (k, i) for k, i in which if spec.name_of(k, i).lower().startswith(want + " ")
        ]
        if not which:
            return [f"No card {name!r}; type cards to list them."]
    out = []
    if not name and kinds != ["card"]:
        out += ["  You hold:"] + hand_lines(game.view(player), spec, width)
        out.append("  Every card of the game:")
    for k, i in which:
        out += wrap(f"{spec.name_of(k, i)}: {card_facts(spec, k, i)}", width, "  ", "  ")
    return out
