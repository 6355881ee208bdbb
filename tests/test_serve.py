"""`rulecraft serve` through Starlette's TestClient: pages and their headers, games set up
from the form, whole games played over the sockets, the store (every decision committed as
made: a new server on the same file resumes every game), refusals (forged tokens, one seat
acting for another, spectators, illegal options, oversized messages), undo of a secret pick."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from rulecraft.runtime import Game
from rulecraft.runtime.serve.app import CSP, MAX_MESSAGE
from serve_helpers import client_for, create, receive, until_state
from starlette.websockets import WebSocketDisconnect

TYW = "march_of_progress/thirty_years_war"

pytestmark = pytest.mark.xdist_group("serve")


def test_front_page_lists_every_compiled_scenario_with_security_headers(tmp_path):
    with client_for(tmp_path / "g.db") as c:
        r = c.get("/")
        assert r.status_code == 200
        assert r.headers["content-security-policy"] == CSP
        assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
        assert r.headers["referrer-policy"] == "no-referrer"  # the links are secrets
        for name in (TYW, "westphalia/congress", "third_reich_diplomacy/campaign_1939"):
            assert f'href="/new?game={name}"' in r.text
        form = c.get(f"/new?game={TYW}")
        assert form.status_code == 200 and 'name="kind_1"' in form.text
        assert c.get("/new?game=nothing/here").status_code == 404
        assert (tmp_path / "g.db").exists()  # created with its schema at start


def test_a_whole_game_against_a_bot_over_the_socket_and_every_decision_stored(tmp_path):
    db = tmp_path / "g.db"
    with client_for(db) as c:
        links = create(c, TYW, ["human", "random"], seed=11, names=["Ann", ""])
        assert links["seats"][1] is None  # a bot's seat has no link
        with c.websocket_connect(f"/ws/{links['seats'][0]}") as ws:
            f = until_state(ws)
            assert f["seat"] == "Blue" and f["names"][0] == "Ann" and f["kinds"][1] == "bot"
            made = 0
            while f["result"] is None:
                d = f["decision"]
                if d is not None and not d["answered"]:
                    ws.send_text(json.dumps({"type": "decide", "option": d["options"][-1]["id"]}))
                    made += 1
                f = until_state(ws)
                assert made < 500
        assert f["result"]["winners"] and f["result"]["reason"]
        save = c.get(f"/api/{links['seats'][0]}/state").json()
        assert save["result"] == f["result"]
    rows = sqlite3.connect(db).execute("SELECT seat, option FROM decisions ORDER BY n").fetchall()
    assert len(rows) > made and {seat for seat, _ in rows} == {"blue", "orange"}
    # the rows are a save: replayed through Game.apply, they make a finished game
    data = json.loads(sqlite3.connect(db).execute("SELECT header FROM games").fetchone()[0])
    data["decisions"] = [list(r) for r in rows]
    g = Game.from_json(json.dumps(data))
    assert g.finished and g.seat_kinds == ("human", "random")


def test_a_new_server_on_the_same_file_resumes_every_game_where_it_was(tmp_path):
    db = tmp_path / "g.db"
    with client_for(db) as c:
        links = create(c, TYW, ["human", "human"], seed=5)
        a, b = links["seats"]
        for _ in range(9):
            for tok in (a, b):
                d = c.get(f"/api/{tok}/state").json()["decision"]
                if d and not d["answered"]:
                    assert (
                        c.post(
                            f"/api/{tok}/decide", json={"option": d["options"][0]["id"]}
                        ).status_code
                        == 200
                    )
        before = [c.get(f"/api/{t}/state").content for t in (a, b, links["spectators"])]
    with client_for(db) as c:
        after = [c.get(f"/api/{t}/state").content for t in (a, b, links["spectators"])]
    assert after == before


def test_forged_or_missing_tokens_are_refused_everywhere(tmp_path):
    with client_for(tmp_path / "g.db") as c:
        links = create(c, TYW, ["human", "human"])
        real = links["seats"][0]
        for bad in (
            "",
            "x",
            real[:-1] + ("A" if real[-1] != "A" else "B"),
            "a" * 500,
            "../" + real,
        ):
            assert c.get(f"/play/{bad}").status_code == 404
            assert c.get(f"/api/{bad}/state").status_code == 404
            assert c.post(f"/api/{bad}/decide", json={"option": "x"}).status_code == 404
            if bad and "/" not in bad:
                with (
                    pytest.raises(WebSocketDisconnect) as e,
                    c.websocket_connect(f"/ws/{bad}") as ws,
                ):
                    ws.receive_text()
                assert e.value.code == 4404
        assert c.get(f"/host/{real}").status_code == 404  # a seat's link is not the host's


def test_one_seats_link_cannot_act_for_another_and_spectators_decide_nothing(tmp_path):
    with client_for(tmp_path / "g.db") as c:
        links = create(c, "westphalia/congress", ["human"] * 6, seed=3)
        seats = links["seats"]
        first = c.get(f"/api/{seats[0]}/state").json()
        assert first["decision"] is not None and first["waiting"] == ["Austria"]
        option = first["decision"]["options"][0]["id"]
        # Bavaria's link offering Austria's option: refused, with the game's reason
        r = c.post(f"/api/{seats[1]}/decide", json={"option": option})
        assert r.status_code == 409 and "has no decision to make" in r.json()["error"]
        assert c.get(f"/api/{seats[1]}/state").json()["decision"] is None
        r = c.post(f"/api/{links['spectators']}/decide", json={"option": option})
        assert r.status_code == 403
        with c.websocket_connect(f"/ws/{links['spectators']}") as ws:
            assert until_state(ws)["decision"] is None
            ws.send_text(json.dumps({"type": "decide", "option": option}))
            assert receive(ws) == {"type": "error", "message": "a spectator decides nothing"}
        # the state is unchanged: Austria still decides
        assert c.get(f"/api/{seats[0]}/state").json()["decision"] == first["decision"]


def test_illegal_options_are_refused_with_the_games_reason(tmp_path):
    with client_for(tmp_path / "g.db") as c:
        links = create(c, TYW, ["human", "human"])
        with c.websocket_connect(f"/ws/{links['seats'][0]}") as ws:
            until_state(ws)
            ws.send_text(json.dumps({"type": "decide", "option": "card:no_such_card"}))
            err = receive(ws)
            assert err["type"] == "error" and "is not a legal option for blue" in err["message"]
            ws.send_text("not json")
            assert receive(ws)["type"] == "error"
            ws.send_text(json.dumps({"type": "decide", "option": 3}))
            assert receive(ws)["type"] == "error"
            ws.send_text("x" * (MAX_MESSAGE + 1))
            with pytest.raises(WebSocketDisconnect) as e:
                receive(ws)
            assert e.value.code == 1009
        r = c.post(
            f"/api/{links['seats'][0]}/decide",
            content=json.dumps({"option": "x" * (MAX_MESSAGE + 10)}),
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 400


def test_a_card_option_says_what_is_on_the_card(tmp_path):
    """The terminal prints a card's text under its option; the page had its name only (a
    Rise of Totalitarianism player chose among "C1 Communism card", "C3 Communism card")."""
    with client_for(tmp_path / "g.db") as c:
        links = create(c, TYW, ["human", "human"], seed=2)
        d = c.get(f"/api/{links['seats'][0]}/state").json()["decision"]
        move = next(o for o in d["options"] if o["id"] == "card:move_1")
        assert move["label"] == "MOVE 1" and move["detail"].startswith("Move 1 of your armies")
        rot = "rise_of_totalitarianism/scenario_a"
        tok = create(c, rot, ["human", "random", "random"], seed=7)["seats"][0]
        seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the bots play on the server, between our turns
            d = c.get(f"/api/{tok}/state").json()["decision"]
            if d is None or d.get("answered"):
                time.sleep(0.05)
                continue
            seen.append((d["prompt"], [o.get("detail") for o in d["options"]]))
            if d["prompt"] == "Choose the Strategy Card to play this Round":
                break
            c.post(f"/api/{tok}/decide", json={"option": d["options"][-1]["id"]})
        boxes = [details for prompt, details in seen if "Order of Play Track" in prompt]
        assert boxes and boxes[0] == [None] * len(boxes[0])  # a box of a track is no card
        assert seen[-1][0] == "Choose the Strategy Card to play this Round"
        assert all(detail and "; Card ID: C" in detail for detail in seen[-1][1])


def test_a_secret_pick_is_taken_back_until_everyone_has_picked(tmp_path):
    with client_for(tmp_path / "g.db") as c:
        links = create(c, TYW, ["human", "human"], seed=2)
        a, b = links["seats"]
        fa = c.get(f"/api/{a}/state").json()
        assert fa["decision"]["secret"] and not fa["can_undo"]
        pick = fa["decision"]["options"][0]["id"]
        fa = c.post(f"/api/{a}/decide", json={"option": pick}).json()
        assert fa["decision"]["answered"] and fa["can_undo"]
        fb = c.get(f"/api/{b}/state").json()
        assert pick not in json.dumps({k: v for k, v in fb.items() if k != "decision"})
        fa = c.post(f"/api/{a}/undo", json={}).json()
        assert not fa["decision"]["answered"] and not fa["can_undo"]
        r = c.post(f"/api/{b}/undo", json={})
        assert r.status_code == 409 and "nothing to take back" in r.json()["error"]
        c.post(f"/api/{a}/decide", json={"option": pick})
        c.post(f"/api/{b}/decide", json={"option": fb["decision"]["options"][0]["id"]})
        # both picked: the cards are revealed, so neither can take theirs back
        r = c.post(f"/api/{b}/undo", json={})
        assert r.status_code == 409, r.text


def test_rules_text_is_escaped_in_pages(tmp_path):
    with client_for(tmp_path / "g.db") as c:
        r = c.post(
            "/new",
            data={
                "game": TYW,
                "kind_0": "human",
                "kind_1": "human",
                "name_0": "<b>x</b>",
            },
            follow_redirects=False,
        )
        page = c.get(r.headers["location"]).text
        assert "<b>x" not in page and "&lt;b&gt;x" in page
        play = c.get("/play/" + create(c, TYW, ["human", "human"])["seats"][0]).text
        assert '<script src="/static/play.js" defer></script>' in play
        assert "Blue" not in play and "March" not in play  # the shell holds no game data


def test_the_serve_command_refuses_a_bad_port_before_starting(capsys):
    from rulecraft.compiler.cli import main

    assert main(["serve", "--port", "70000"]) != 0
    assert "a port is from 1 to 65535" in capsys.readouterr().err


def test_a_long_list_of_options_is_cut_but_keeps_its_decline(tmp_path):
    from rulecraft.runtime.serve.frames import MAX_LISTED

    with client_for(tmp_path / "g.db") as c:
        austria = create(c, "westphalia/congress", ["human"] * 6, seed=3)["seats"][0]
        first = c.get(f"/api/{austria}/state").json()["decision"]
        c.post(f"/api/{austria}/decide", json={"option": first["options"][0]["id"]})
        d = c.get(f"/api/{austria}/state").json()["decision"]
        assert d["options_kind"] == "offer" and d["more"] > 0
        assert len(d["options"]) == MAX_LISTED and d["options"][-1]["id"] == "pass"
        assert c.post(f"/api/{austria}/decide", json={"option": "pass"}).status_code == 200


def _hot_link(c, page_path: str) -> str | None:
    import re

    found = re.search(r'Hot seats.*?/play/([^"]+)"', c.get(page_path).text, re.S)
    return found.group(1) if found else None


def test_a_hot_seat_plays_its_seats_in_turn_and_asks_for_the_screen_between_them(tmp_path):
    """One person (or people at one screen) at several seats: with the hot seat option the
    host gets one link more for a name given to several seats. It shows the seat that is to
    decide, acts as that seat, and takes back that seat's last decision; the page hands the
    screen over when the seat changes (play.js); the link survives a new server."""
    form = {"game": TYW, "seed": "7", "hot": "on"}
    form |= {"kind_0": "human", "kind_1": "human", "name_0": "Ann", "name_1": "Ann"}
    with client_for(tmp_path / "g.db") as c:
        r = c.post("/new", data=form, follow_redirects=False)
        host = r.headers["location"]
        hot = _hot_link(c, host)
        assert hot is not None
        seen = set()
        for _ in range(6):
            f = c.get(f"/api/{hot}/state").json()
            assert f["hot"] == ["Blue", "Orange"] and f["seat"] in f["hot"]
            assert f["decision"] is not None and f["waiting"][0] == f["seat"]
            seen.add(f["seat"])
            r = c.post(f"/api/{hot}/decide", json={"option": f["decision"]["options"][0]["id"]})
            assert r.status_code == 200, r.text
        assert seen == {"Blue", "Orange"}  # one link decided for both seats
        assert c.get(f"/api/{hot}/state").json()["can_undo"]
        assert c.post(f"/api/{hot}/undo", json={}).status_code == 200
        again = c.get(f"/api/{hot}/state").json()  # the last decision to make again
        assert (again["seat"], again["decision"]) == (f["seat"], f["decision"])
    with client_for(tmp_path / "g.db") as c:  # a new server: the hot seat's link still opens
        assert c.get(f"/api/{hot}/state").json()["hot"] == ["Blue", "Orange"]
        # without the option, no hot seat
        form.pop("hot")
        r = c.post("/new", data=form, follow_redirects=False)
        assert _hot_link(c, r.headers["location"]) is None
