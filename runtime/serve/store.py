"""The server's games in SQLite: each game as a save (:mod:`rulecraft.runtime.saves`), its
decisions one row each, committed as each is made.

A game's row holds the save's header (game, scenario, layout, constants, seed, limit, who
plays each seat) and its secret links; its decisions are rows ``(game, n, seat, option id)``.
Loading a game is loading its save: :meth:`Store.save_text` puts the header and the decisions
together as a save of version 3 and :meth:`rulecraft.runtime.Game.from_json` replays it, every
rule checked. Stopping the server (even killing it) loses nothing but a decision in flight:
a decision is answered to its seat only after its row is committed. Standard library only.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Store", "StoredGame", "Link", "HOT", "new_token"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    header TEXT NOT NULL,            -- the save without its decisions (JSON)
    names TEXT NOT NULL,             -- the players' names, one per seat (JSON)
    host TEXT NOT NULL UNIQUE        -- the host's link: every seat's link
);
CREATE TABLE IF NOT EXISTS links (
    token TEXT PRIMARY KEY,
    game TEXT NOT NULL REFERENCES games(id),
    seat INTEGER                     -- NULL: the spectators' link; -1: a hot seat's
);
CREATE TABLE IF NOT EXISTS hotseats (  -- a hot seat's link (seat -1 in links): its seats
    token TEXT NOT NULL REFERENCES links(token),
    seat INTEGER NOT NULL,
    PRIMARY KEY (token, seat)
);
CREATE TABLE IF NOT EXISTS decisions (
    game TEXT NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    seat TEXT NOT NULL,
    option TEXT NOT NULL,
    PRIMARY KEY (game, n)
);
"""


def new_token() -> str:
    """An unguessable link token: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


#: ``links.seat`` of a hot seat's link: the seats it plays are in ``hotseats``
HOT = -1


@dataclass(frozen=True)
class Link:
    """What a link opens: a game, and a seat (None: a spectator), or the seats of one person
    at a hot seat (``seat`` is HOT)."""

    game: str
    seat: int | None
    seats: tuple[int, ...] = ()


@dataclass(frozen=True)
class StoredGame:
    id: str
    header: dict[str, Any]
    names: list[str]
    host: str
    links: dict[int | None, str]  # seat (None: spectators) -> token
    hot: dict[str, tuple[int, ...]]  # a hot seat's token -> the seats it plays


class Store:
    """The database file (created with its schema if missing). Safe across threads: one
    connection under a lock; every write is its own committed transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def create(
        self, header: dict[str, Any], names: list[str], seats: int, hot: Sequence[int] = ()
    ) -> StoredGame:
        """A new game with a secret link per seat, one for spectators and one for the host;
        and one link for each name given to several of the seats ``hot`` (a hot seat: one
        person, or people at one screen, playing those seats in turn)."""
        gid = new_token()
        host = new_token()
        links: dict[int | None, str] = {k: new_token() for k in range(seats)}
        links[None] = new_token()
        groups: dict[str, list[int]] = {}
        for k in hot:
            if 0 <= k < min(seats, len(names)) and names[k]:
                groups.setdefault(names[k], []).append(k)
        hot_links = {new_token(): tuple(ks) for ks in groups.values() if len(ks) > 1}
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?)",
                (gid, time.time(), json.dumps(header), json.dumps(names), host),
            )
            for seat, token in links.items():
                self._db.execute("INSERT INTO links VALUES (?, ?, ?)", (token, gid, seat))
            for token, ks in hot_links.items():
                self._db.execute("INSERT INTO links VALUES (?, ?, ?)", (token, gid, HOT))
                for k in ks:
                    self._db.execute("INSERT INTO hotseats VALUES (?, ?)", (token, k))
            self._db.execute("COMMIT")
        return StoredGame(gid, header, names, host, links, hot_links)

    def link(self, token: str) -> Link | None:
        with self._lock:
            row = self._db.execute(
                "SELECT game, seat FROM links WHERE token = ?", (token,)
            ).fetchone()
            if row is None or row[1] != HOT:
                return None if row is None else Link(row[0], row[1])
            seats = self._db.execute(
                "SELECT seat FROM hotseats WHERE token = ? ORDER BY seat", (token,)
            ).fetchall()
        return Link(row[0], HOT, tuple(k for (k,) in seats))

    def by_host(self, token: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT id FROM games WHERE host = ?", (token,)).fetchone()
        return None if row is None else row[0]

    def game(self, gid: str) -> StoredGame:
        with self._lock:
            _id, _created, header, names, host = self._db.execute(
                "SELECT * FROM games WHERE id = ?", (gid,)
            ).fetchone()
            rows = self._db.execute("SELECT token, seat FROM links WHERE game = ?", (gid,))
            links = {seat: token for token, seat in rows.fetchall() if seat != HOT}
            hot: dict[str, list[int]] = {}
            for token, seat in self._db.execute(
                "SELECT h.token, h.seat FROM hotseats h JOIN links l ON l.token = h.token "
                "WHERE l.game = ? ORDER BY h.seat",
                (gid,),
            ).fetchall():
                hot.setdefault(token, []).append(seat)
        hot_links = {t: tuple(ks) for t, ks in hot.items()}
        return StoredGame(gid, json.loads(header), json.loads(names), host, links, hot_links)

    def ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT id FROM games ORDER BY created")]

    def decisions(self, gid: str) -> list[tuple[str, str]]:
        """``(seat, option id)`` of every decision of the game, in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT seat, option FROM decisions WHERE game = ? ORDER BY n", (gid,)
            ).fetchall()
        return [(seat, option) for seat, option in rows]

    def add(self, gid: str, n: int, seat: str, option: str) -> None:
        """Decision ``n`` (from 1) of a game, committed before this returns."""
        with self._lock:
            self._db.execute("INSERT INTO decisions VALUES (?, ?, ?, ?)", (gid, n, seat, option))

    def drop_after(self, gid: str, n: int) -> None:
        """Take back the decisions after the ``n``-th (undo)."""
        with self._lock:
            self._db.execute("DELETE FROM decisions WHERE game = ? AND n > ?", (gid, n))

    def save_text(self, gid: str) -> str:
        """The game as a save (version 3, without its position): what ``Game.from_json``
        replays and ``rulecraft play --load`` goes on with."""
        data = dict(self.game(gid).header)
        data["decisions"] = [[seat, option] for seat, option in self.decisions(gid)]
        return json.dumps(data, separators=(",", ":"))
