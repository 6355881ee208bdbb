"""The ASGI application of ``rulecraft serve`` (Starlette): pages, the play socket, a small
JSON API for scripts, and the headers that keep a page to itself.

Routes: ``/`` (the compiled games), ``/new`` (set up a game; POST creates it), ``/host/T``
(the links of a game), ``/play/T`` (a seat's or the spectators' page), ``/ws/T`` (its socket:
frames out, ``{"type": "decide", "option": ID}`` and ``{"type": "undo"}`` in, each answered
with ``{"type": "ok"}`` or ``{"type": "error", "message": WHY}`` after the frames it caused),
``/api/T/map`` (the hex board to draw, the same for every seat: the rules data alone, made
once per game and kept), ``/api/T/state``, ``/api/T/decide`` and ``/api/T/undo`` (the same
over HTTP). ``T`` is a link's secret token; an unknown token is refused (404) before anything
is read.
"""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..machine import GameError
from ..numbers import parse_int
from ..registry import known_games, load_spec
from ..tools.balance import scenarios_of
from ..tools.text_map import map_data
from . import pages
from .frames import encode
from .rooms import BOTS, HUMAN, Rooms, Watcher
from .store import Store

__all__ = ["create_app", "CSP", "MAX_MESSAGE", "MAX_FORM"]

STATIC = Path(__file__).parent / "static"
#: the Content-Security-Policy of every response: scripts and styles from this server only,
#: no inline code, no frames, sockets to this server
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
#: the longest message a page may send on its socket or to the API (characters)
MAX_MESSAGE = 8192
#: the longest form (setting up a game)
MAX_FORM = 16384
_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def _scenarios() -> list[tuple[str, str, list[tuple[str, str, list[str]]]]]:
    """Every compiled game: (game, title, [(scenario, its title, its seats' labels)])."""
    out = []
    for game in known_games():
        if "/" in game:
            continue
        rows = [
            (sid, spec.scenario_title, list(spec.seat_labels)) for spec, sid in scenarios_of(game)
        ]
        out.append((game, load_spec(game).title, rows))
    return out


def create_app(db: str | Path, bot_delay: float = 0.0) -> Starlette:
    """The application over the database file ``db`` (created with its schema if missing)."""
    store = Store(db)
    rooms = Rooms(store, bot_delay)
    games = _scenarios()
    known = {
        f"{g}/{sid}": (f"{gtitle}: {title}", seats)
        for g, gtitle, rows in games
        for sid, title, seats in rows
    }

    def html(text: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(text, status, headers=_HEADERS)

    def refused(status: int, text: str) -> Response:
        return html(pages.message_page("Not here", text), status)

    async def front(request: Request) -> Response:
        return html(pages.front(games))

    async def new(request: Request) -> Response:
        if request.method == "GET":
            name = request.query_params.get("game", "")
            if name not in known:
                return refused(404, "No such game or scenario.")
            title, seats = known[name]
            return html(pages.setup_form(name, title, seats))
        if int(request.headers.get("content-length") or MAX_FORM + 1) > MAX_FORM:
            return refused(413, "The form is too long.")
        body = await request.body()
        if len(body) > MAX_FORM:
            return refused(413, "The form is too long.")
        form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        name = str(form.get("game", ""))
        if name not in known:
            return refused(404, "No such game or scenario.")
        title, seats = known[name]
        kinds = [str(form.get(f"kind_{k}", HUMAN)) for k in range(len(seats))]
        names = [str(form.get(f"name_{k}", "")).strip()[:40] for k in range(len(seats))]
        seed_text = str(form.get("seed", "")).strip()
        seed = parse_int(seed_text, digits=9) if seed_text else secrets.randbelow(1_000_000_000)
        bad = [k for k in kinds if k != HUMAN and k not in BOTS]
        if seed is None or bad:
            why = (
                "The seed is a whole number of at most 9 digits."
                if seed is None
                else (f"Unknown kind of player {bad[0][:20]!r}.")
            )
            return html(pages.setup_form(name, title, seats, why), 400)
        try:
            stored = rooms.create(name, seed, kinds, names, hot=form.get("hot") == "on")
        except GameError as exc:
            return html(pages.setup_form(name, title, seats, str(exc)), 400)
        return RedirectResponse(f"/host/{stored.host}", 303, headers=_HEADERS)

    async def host(request: Request) -> Response:
        token = request.path_params["token"]
        gid = store.by_host(token)
        if gid is None:
            return refused(404, "No game has this link.")
        stored = store.game(gid)
        room = rooms.room(gid)
        spec = room.game.spec
        links = [
            (
                label,
                "bot: " + room.kinds[k]
                if room.kinds[k] != HUMAN
                else (stored.names[k] or "a person"),
                "" if room.kinds[k] != HUMAN else f"/play/{stored.links[k]}",
            )
            for k, label in enumerate(spec.seat_labels)
        ]
        title = f"{spec.title}: {spec.scenario_title}"
        base = str(request.base_url).rstrip("/")  # whole addresses, to send as they are
        links = [(seat, who, base + path if path else "") for seat, who, path in links]
        spectators = f"{base}/play/{stored.links[None]}"
        labels = spec.seat_labels
        hot = [
            (", ".join(labels[k] for k in ks), stored.names[ks[0]], f"{base}/play/{t}")
            for t, ks in stored.hot.items()
        ]
        return html(pages.host_page(title, links, spectators, f"{base}/host/{token}", hot))

    def opened(token: str) -> Any:
        """``(room, seat, seats)`` a link opens (seat None: a spectator; ``seats``: a hot
        seat's, whose seat is the one to decide now), or None."""
        link = store.link(token) if len(token) < 64 else None
        if link is None:
            return None
        room = rooms.room(link.game)
        seat = room.hot_seat(link.seats) if link.seats else link.seat
        return room, seat, link.seats

    async def play(request: Request) -> Response:
        if opened(request.path_params["token"]) is None:
            return refused(404, "No game has this link.")
        return html(pages.play_page())

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ("play.js", "style.css"):
            return refused(404, "Not found.")
        return FileResponse(STATIC / name, headers=_HEADERS)

    async def api_state(request: Request) -> Response:
        found = opened(request.path_params["token"])
        if found is None:
            return JSONResponse({"error": "no game has this link"}, 404, headers=_HEADERS)
        room, seat, seats = found
        rooms.wake_bots(room)  # a game loaded again whose bot was to play goes on
        return Response(
            encode(room.frame(seat, 0, seats)), media_type="application/json", headers=_HEADERS
        )

    maps: dict[int, tuple[Any, bytes]] = {}  # id(spec) -> (spec, the board as JSON)

    async def api_map(request: Request) -> Response:
        found = opened(request.path_params["token"])
        if found is None:
            return JSONResponse({"error": "no game has this link"}, 404, headers=_HEADERS)
        spec = found[0].game.spec
        kept = maps.get(id(spec))
        if kept is None or kept[0] is not spec:
            kept = maps[id(spec)] = (spec, encode({"map": map_data(spec)}).encode("utf-8"))
        return Response(kept[1], media_type="application/json", headers=_HEADERS)

    async def _message(request: Request) -> Any:
        if int(request.headers.get("content-length") or MAX_MESSAGE + 1) > MAX_MESSAGE:
            return None
        try:
            data = json.loads(await request.body())
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    async def api_act(request: Request) -> Response:
        found = opened(request.path_params["token"])
        if found is None:
            return JSONResponse({"error": "no game has this link"}, 404, headers=_HEADERS)
        room, seat, seats = found
        if seat is None:
            return JSONResponse({"error": "a spectator decides nothing"}, 403, headers=_HEADERS)
        data = await _message(request)
        if data is None:
            return JSONResponse(
                {"error": "send a JSON object (at most 8 KB)"}, 400, headers=_HEADERS
            )
        if request.path_params["act"] == "undo":
            why = await rooms.undo(room, room.undoer(seats, seat))
        else:
            option = data.get("option")
            if not isinstance(option, str):
                return JSONResponse({"error": "no option named"}, 400, headers=_HEADERS)
            why = await rooms.decide(room, seat, option)
        if why is not None:
            return JSONResponse({"error": why}, 409, headers=_HEADERS)
        if seats:
            seat = room.hot_seat(seats, seat)
        return Response(
            encode(room.frame(seat, 0, seats)), media_type="application/json", headers=_HEADERS
        )

    async def socket(ws: WebSocket) -> None:
        found = opened(ws.path_params["token"])
        if found is None:
            await ws.close(code=4404)
            return
        room, seat, seats = found
        await ws.accept()
        watcher = Watcher(seat, ws.send_text, seats=seats)
        await rooms.watch(room, watcher)
        try:
            while True:
                text = await ws.receive_text()
                if len(text) > MAX_MESSAGE:
                    await ws.close(code=1009)
                    return
                try:
                    data = json.loads(text)
                except ValueError:
                    data = None
                why: str | None
                if not isinstance(data, dict):
                    why = "send a JSON object"
                elif seat is None:
                    why = "a spectator decides nothing"
                elif data.get("type") == "undo":
                    why = await rooms.undo(room, room.undoer(seats, watcher.seat))
                elif data.get("type") == "decide" and isinstance(data.get("option"), str):
                    # a hot seat decides as the seat its page shows
                    why = await rooms.decide(room, watcher.seat, data["option"])
                else:
                    why = "send {type: decide, option: ID} or {type: undo}"
                # every message is answered once, after the frames it caused: ok or why not
                reply = {"type": "ok"} if why is None else {"type": "error", "message": why}
                await ws.send_text(encode(reply))
        except (WebSocketDisconnect, RuntimeError):
            pass  # the page is gone (Starlette says so with either, by version)
        finally:
            rooms.leave(room, watcher)

    async def favicon(request: Request) -> Response:
        return Response(status_code=204, headers=_HEADERS)

    routes = [
        Route("/", front),
        Route("/favicon.ico", favicon),
        Route("/new", new, methods=["GET", "POST"]),
        Route("/host/{token}", host),
        Route("/play/{token}", play),
        Route("/static/{name}", static),
        Route("/api/{token}/state", api_state),
        Route("/api/{token}/map", api_map),
        Route("/api/{token}/{act:str}", api_act, methods=["POST"]),
        WebSocketRoute("/ws/{token}", socket),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        for room in rooms.rooms.values():
            if room.bots is not None:
                room.bots.cancel()
        store.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.rooms = rooms
    app.state.store = store
    return app
