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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Store", "StoredGame", "Link", "new_token"]

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
    seat INTEGER                     -- NULL: the spectators' link
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


@dataclass(frozen=True)
class Link:
    """What a link opens: a game, and a seat (None: a spectator)."""

    game: str
    seat: int | None


@dataclass(frozen=True)
class StoredGame:
    id: str
    header: dict[str, Any]
    names: list[str]
    host: str
    links: dict[int | None, str]  # seat (None: spectators) -> token


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

    def create(self, header: dict[str, Any], names: list[str], seats: int) -> StoredGame:
        """A new game with a secret link per seat, one for spectators and one for the host."""
        gid = new_token()
        host = new_token()
        links: dict[int | None, str] = {k: new_token() for k in range(seats)}
        links[None] = new_token()
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?)",
                (gid, time.time(), json.dumps(header), json.dumps(names), host),
            )
            for seat, token in links.items():
                self._db.execute("INSERT INTO links VALUES (?, ?, ?)", (token, gid, seat))
            self._db.execute("COMMIT")
        return StoredGame(gid, header, names, host, links)

    def link(self, token: str) -> Link | None:
        with self._lock:
            row = self._db.execute(
                "SELECT game, seat FROM links WHERE token = ?", (token,)
            ).fetchone()
        return None if row is None else Link(row[0], row[1])

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
            links = {seat: token for token, seat in rows.fetchall()}
        return StoredGame(gid, json.loads(header), json.loads(names), host, links)

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
