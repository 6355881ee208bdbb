"""The server killed mid-game (SIGKILL: no clean shutdown) and started again on the same
database file: every game resumes at the same decision with the same state, and play goes
on. A real `rulecraft serve` process on 127.0.0.1, stopped by the test itself."""

from __future__ import annotations

import signal
import time

import httpx2
import pytest
from serve_helpers import create, free_port, start_server, stop

pytestmark = pytest.mark.xdist_group("serve")


def _settled(c: httpx2.Client, token: str) -> dict:
    """The seat's frame once no bot is thinking (the bots play in the background)."""
    for _ in range(500):
        f = c.get(f"/api/{token}/state").json()
        bots = {s for s, k in zip(f["seats"], f["kinds"], strict=True) if k == "bot"}
        mine = f["decision"] is not None and not f["decision"]["answered"]
        if f["result"] or mine or not bots & set(f["waiting"]):
            return f
        time.sleep(0.02)
    raise AssertionError("a bot never decided")


def _play(c: httpx2.Client, token: str, times: int) -> int:
    made = 0
    for _ in range(times):
        d = _settled(c, token)["decision"]
        if d and not d["answered"]:
            r = c.post(f"/api/{token}/decide", json={"option": d["options"][-1]["id"]})
            assert r.status_code == 200, r.text
            made += 1
    return made


def test_killed_and_restarted_the_server_resumes_every_game(tmp_path):
    db = tmp_path / "games.sqlite3"
    port = free_port()
    proc = start_server(db, port)
    try:
        with httpx2.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False) as c:
            people = create(c, "march_of_progress/thirty_years_war", ["human", "human"], seed=4)
            bot = create(c, "march_of_progress/thirty_years_war", ["human", "random"], seed=9)
            made = 0
            for _ in range(6):
                made += _play(c, people["seats"][0], 1) + _play(c, people["seats"][1], 1)
                made += _play(c, bot["seats"][0], 1)
            assert made >= 12
            tokens = [*people["seats"], people["spectators"], bot["seats"][0], bot["spectators"]]
            _settled(c, bot["seats"][0])
            before = [c.get(f"/api/{t}/state").content for t in tokens]
        proc.send_signal(signal.SIGKILL)
        proc.wait(20)
        stop(proc)
        proc = start_server(db, port)
        with httpx2.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False) as c:
            after = [c.get(f"/api/{t}/state").content for t in tokens]
            assert after == before
            assert _play(c, people["seats"][0], 2) + _play(c, people["seats"][1], 2) > 0
            assert _play(c, bot["seats"][0], 2) > 0
    finally:
        stop(proc)
