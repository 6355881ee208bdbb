"""The play page's map of a hex board (issue 26 item 4): the board, the same for everyone, sent
once per page from ``/api/T/map``; what stands on it in every frame, from the seat's view
alone (forces in the fog of war only as the view labels them); a game without a board gets
no map; the page draws it with DOM calls, never as HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from serve_helpers import client_for, create, until_state

pytestmark = pytest.mark.xdist_group("serve")

BLENHEIM = "marlborough/blenheim"
TYW = "march_of_progress/thirty_years_war"
STATIC = Path(__file__).parent.parent / "runtime" / "serve" / "static"


def first_frame(client, token: str) -> dict:
    with client.websocket_connect(f"/ws/{token}") as ws:
        return until_state(ws)


def test_a_board_games_seat_gets_the_map_once_and_its_pieces_in_every_frame(tmp_path):
    with client_for(tmp_path / "g.db") as c:
        links = create(c, BLENHEIM, ["human", "human"], seed=3)
        a, b = links["seats"]
        fa, fb = first_frame(c, a), first_frame(c, b)
        fs = first_frame(c, links["spectators"])
        # the board: the same bytes for every link, every hex with its place and terrain
        boards = [c.get(f"/api/{t}/map") for t in (a, b, links["spectators"])]
        assert all(r.status_code == 200 for r in boards)
        assert boards[0].headers["content-type"] == "application/json"
        assert boards[0].headers["x-content-type-options"] == "nosniff"
        assert boards[0].content == boards[1].content == boards[2].content
        board = boards[0].json()["map"]
        assert len(board["hexes"]) == 2400 and "sea" in board["terrain"]
        assert {(h[1], h[2]) for h in board["hexes"]} >= {(1, 1), (60, 40)}
        # the pieces: one's own named, the other side's in the fog as "a force of unknown size"
        places = {h[0] for h in board["hexes"]} | {x[0] for x in board["boxes"]}

        def units(f, kind):
            return {name for rec, us in f["map"] for name, k in us if k == kind and rec in places}

        assert units(fa, "own") and units(fb, "own") and not units(fa, "own") & units(fb, "own")
        assert units(fa, "fog") == {"Grand Alliance force of unknown size"}
        assert units(fb, "fog") == {"Bourbon force of unknown size"}
        assert not units(fs, "own")
        text_a = json.dumps(fa["map"])
        assert not any(name in text_a for name in units(fb, "own")), "A's map names B's units"
        # the board is not in the frames: they carry only what stands on it
        assert '"hexes"' not in json.dumps(fa) and len(json.dumps(fa["map"])) < 10_000


def test_a_game_without_a_board_gets_no_map_and_bad_links_none(tmp_path):
    with client_for(tmp_path / "g.db") as c:
        links = create(c, TYW, ["human", "human"])
        assert first_frame(c, links["seats"][0])["map"] is None
        assert c.get(f"/api/{links['seats'][0]}/map").json() == {"map": None}
        assert c.get("/api/nosuchlink/map").status_code == 404
        play = c.get("/play/" + links["seats"][0]).text
        assert 'id="map"' in play and 'id="mapcard" class="card" hidden' in play


def test_the_page_draws_the_map_with_dom_calls_never_as_html():
    js = (STATIC / "play.js").read_text()
    assert "createElementNS" in js and "textContent" in js
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(", js)


def test_rules_text_on_the_map_travels_as_json_data_only(tmp_path, monkeypatch):
    import rulecraft.runtime.serve.app as app

    hostile = '</script><img src=x onerror="alert(1)">'
    fake = {"shifted": "even", "terrain": [hostile], "hexes": [[0, 1, 1, 0, "0101", hostile]],
            "sides": {hostile: []}, "boxes": []}  # fmt: skip
    monkeypatch.setattr(app, "map_data", lambda spec: fake)
    with client_for(tmp_path / "g.db") as c:
        links = create(c, BLENHEIM, ["human", "human"], seed=3)
        r = c.get(f"/api/{links['seats'][0]}/map")
        assert r.headers["content-type"] == "application/json"
        assert r.headers["content-security-policy"].startswith("default-src 'none'")
        assert r.json() == {"map": fake}
        assert hostile not in c.get(f"/play/{links['seats'][0]}").text
