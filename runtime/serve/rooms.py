"""The games the server holds in memory, each a :class:`Room`: the game, who plays each seat,
the pages watching it; deciding (through ``Game.apply``, committed to the store before anyone
is told), taking back, and the bots that play their seats on the server."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..game import Game, undo_barrier
from ..layout import SEED, STEPS
from ..machine import GameError
from ..registry import load_spec
from ..rng import derive_seed
from ..saves import MAX_OPTION_ID
from ..tools.agents import make_agent
from .frames import encode, frame
from .store import Store, StoredGame

__all__ = ["Room", "Rooms", "Watcher", "HUMAN", "BOTS", "is_bot"]

_log = logging.getLogger("rulecraft.serve")

#: what may sit at a seat: a person, or a bot of runtime.tools.agents
HUMAN = "human"
BOTS = ("random", "mc", "ismcts")


def is_bot(kind: str) -> bool:
    return kind != HUMAN and not kind.startswith("human:")


@dataclass(eq=False)
class Watcher:
    """A page watching a room: its seat (None: a spectator), how it is sent a text, and
    how many log lines it has."""

    seat: int | None
    send: Callable[[str], Awaitable[None]]
    log_sent: int = 0
    #: a hot seat's seats (its ``seat`` follows whichever of them is to decide)
    seats: tuple[int, ...] = ()


@dataclass(eq=False)
class Room:
    gid: str
    game: Game
    kinds: tuple[str, ...]
    names: list[str]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watchers: set[Watcher] = field(default_factory=set)
    bots: asyncio.Task[None] | None = None

    def bot_turn(self) -> Any:
        """The bot decision to make now, if any: none while a person still has a secret
        pick to make (the people pick first, so that theirs can be taken back)."""
        pending = self.game.pending()
        if not pending:
            return None
        secret = any(self.game.spec.sites[d.site].simultaneous for d in pending)
        people = [d for d in pending if not is_bot(self.kinds[d.player])]
        if secret and people:
            return None
        return next((d for d in pending if is_bot(self.kinds[d.player])), None)

    def hot_seat(self, seats: tuple[int, ...], now: int | None = None) -> int:
        """The seat a hot seat's link plays now: the first of ``seats`` with a decision to
        make; else the one it played (``now``), else the first."""
        pending = {d.player for d in self.game.pending()}
        here = next((k for k in seats if k in pending), None)
        if here is not None:
            return here
        return now if now in seats else seats[0]

    def frame(
        self, seat: int | None, log_from: int = 0, seats: tuple[int, ...] = ()
    ) -> dict[str, Any]:
        """``seat``'s frame; ``seats``: those of the hot seat it is one of (the page then
        asks the screen to be handed over when the seat changes)."""
        out = frame(self.game, seat, log_from)
        out["names"] = self.names
        out["kinds"] = ["bot" if is_bot(k) else "human" for k in self.kinds]
        out["can_undo"] = (
            False if seat is None else self.undo_refused(self.undoer(seats, seat)) is None
        )
        out["hot"] = [self.game.spec.seat_labels[k] for k in seats]
        return out

    def undoer(self, seats: tuple[int, ...], seat: int) -> int:
        """The seat whose last decision a page takes back: its own, or at a hot seat the
        one of its seats that made the last decision."""
        made = self.game.decisions()
        return made[-1][0] if seats and made and made[-1][0] in seats else seat

    def undo_refused(self, seat: int, decisions: list[tuple[int, str]] | None = None) -> str | None:
        """Why ``seat`` may not take back its last decision now, or None (the game's own
        record says: the last decision is the seat's, and nothing was rolled or revealed)."""
        made = decisions if decisions is not None else self.game.decisions()
        if not made:
            return "nothing to take back"
        if made[-1][0] != seat:
            return "another seat has decided since your last decision"
        return None


class Rooms:
    """Every game of the store, loaded when first asked for."""

    def __init__(self, store: Store, bot_delay: float = 0.0) -> None:
        self.store = store
        self.rooms: dict[str, Room] = {}
        self.bot_delay = bot_delay

    # -- games -------------------------------------------------------------------------
    def create(
        self, name: str, seed: int, kinds: list[str], names: list[str], hot: bool = False
    ) -> StoredGame:
        game_name, _, scenario = name.partition("/")
        spec = load_spec(game_name, scenario or None)
        if len(kinds) != len(spec.seats):
            raise GameError(f"{len(spec.seats)} seats, {len(kinds)} kinds given")
        for kind in kinds:
            if kind != HUMAN and kind not in BOTS:
                raise GameError(f"unknown seat kind {kind!r} ({HUMAN}, {', '.join(BOTS)})")
        game = Game.new(spec, None, seed)
        game.seat_kinds = tuple(kinds)
        data = json.loads(game.to_json())
        del data["decisions"], data["position"]
        people = [k for k, kind in enumerate(kinds) if kind == HUMAN] if hot else []
        return self.store.create(data, names, len(spec.seats), people)

    def room(self, gid: str) -> Room:
        room = self.rooms.get(gid)
        if room is None:
            stored = self.store.game(gid)
            game = Game.from_json(self.store.save_text(gid))
            kinds = game.seat_kinds or tuple(HUMAN for _ in game.spec.seats)
            room = Room(gid, game, kinds, stored.names)
            self.rooms[gid] = room
        return room

    # -- watching ----------------------------------------------------------------------
    async def watch(self, room: Room, watcher: Watcher) -> None:
        room.watchers.add(watcher)
        await self._send(room, watcher)
        self.wake_bots(room)

    def leave(self, room: Room, watcher: Watcher) -> None:
        room.watchers.discard(watcher)

    async def _send(self, room: Room, w: Watcher) -> None:
        if w.seats:  # a hot seat: the seat to decide now, its log from the start
            seat = room.hot_seat(w.seats, w.seat)
            if seat != w.seat:
                w.seat, w.log_sent = seat, 0
        data = room.frame(w.seat, w.log_sent, w.seats)
        w.log_sent = data["log_from"] + len(data["log"])
        try:
            await w.send(encode(data))
        except Exception:  # a page gone: it is forgotten, the game goes on
            room.watchers.discard(w)

    async def tell(self, room: Room) -> None:
        for w in list(room.watchers):
            await self._send(room, w)

    # -- deciding ----------------------------------------------------------------------
    async def _commit(self, room: Room, player: int, option: str) -> None:
        """Apply through ``Game.apply`` (refused with its reason) on a copy, commit the row
        (in a thread: other games go on while the disk syncs), then make the copy the game:
        no page is shown a decision that is not yet committed."""
        if not isinstance(option, str) or len(option) > MAX_OPTION_ID:
            raise GameError("an option id is a text of at most 2,000 characters")
        game = room.game.clone()
        game.apply(player, option)
        seat = game.spec.seats[player]
        await asyncio.to_thread(self.store.add, room.gid, game.raw[STEPS], seat, option)
        room.game = game

    async def decide(self, room: Room, seat: int, option: str) -> str | None:
        """``seat`` decides ``option``: None, or why it is refused."""
        async with room.lock:
            try:
                await self._commit(room, seat, option)
            except GameError as exc:
                return str(exc)
        await self.tell(room)
        self.wake_bots(room)
        return None

    async def undo(self, room: Room, seat: int) -> str | None:
        """Take back ``seat``'s last decision if nothing was rolled or revealed since."""
        async with room.lock:
            made = room.game.decisions()
            why = room.undo_refused(seat, made)
            if why is not None:
                return f"Cannot undo: {why}."
            before = Game.from_json(_save_without_last(self.store.save_text(room.gid)))
            why = undo_barrier(before, room.game)
            if why is not None:
                return f"Cannot undo: {why} since your last decision."
            self.store.drop_after(room.gid, len(made) - 1)
            before.seat_kinds = room.game.seat_kinds
            room.game = before
            for w in room.watchers:
                w.log_sent = 0  # the log may have lost lines: send it whole again
        await self.tell(room)
        return None

    # -- bots --------------------------------------------------------------------------
    def wake_bots(self, room: Room) -> None:
        if room.bots is None or room.bots.done():
            if room.bot_turn() is not None:
                room.bots = asyncio.get_running_loop().create_task(self._bots(room))

    async def _bots(self, room: Room) -> None:
        try:
            await self._bot_moves(room)
        except Exception:  # a bot that fails stops its game, said in the server's log
            _log.exception("the bots of game %s stopped", room.gid)

    async def _bot_moves(self, room: Room) -> None:
        while True:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            async with room.lock:
                d = room.bot_turn()
                if d is None:
                    return
                game = room.game
                seed = derive_seed(derive_seed(game.raw[SEED], d.player), game.raw[STEPS])
                bot = make_agent(room.kinds[d.player], seed)
                view = game.view_state(d.player) if getattr(bot, "needs_view", True) else None
                choice = await asyncio.to_thread(bot.choose, view, d, game.spec)
                await self._commit(room, d.player, str(choice))
            await self.tell(room)


def _save_without_last(text: str) -> str:
    data = json.loads(text)
    data["decisions"] = data["decisions"][:-1]
    return json.dumps(data)
