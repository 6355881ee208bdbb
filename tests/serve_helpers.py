"""What the tests of `rulecraft serve` share: an app over a fresh database, games set up
through the front page's form, a seat's socket read frame by frame, a server process on
127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient


def create(client: Any, name: str, kinds: list[str], seed: int = 7, names: Any = None) -> dict:
    """Set up a game through the form; its links: {"host", "seats": [...], "spectators"}."""
    form = {"game": name, "seed": str(seed)}
    for k, kind in enumerate(kinds):
        form[f"kind_{k}"] = kind
        form[f"name_{k}"] = (names or [""] * len(kinds))[k]
    r = client.post("/new", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    host = r.headers["location"]
    page = client.get(host).text
    plays = re.findall(r'<td><a class="link" href="[^"]*/play/([^"]+)">', page)
    spectators = re.search(r'Spectators[^<]*<a class="link" href="[^"]*/play/([^"]+)"', page)
    seats: list[str | None] = []
    it = iter(plays)
    for kind in kinds:
        seats.append(next(it) if kind == "human" else None)
    assert spectators is not None
    return {"host": host, "seats": seats, "spectators": spectators.group(1)}


def receive(ws: Any) -> dict:
    return json.loads(ws.receive_text())


def until_state(ws: Any) -> dict:
    """The next state frame (an error frame is raised)."""
    while True:
        f = receive(ws)
        if f["type"] == "error":
            raise AssertionError(f["message"])
        if f["type"] == "state":
            return f


def client_for(db: Path) -> TestClient:
    from rulecraft.runtime.serve.app import create_app

    return TestClient(create_app(db))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: Path, port: int) -> subprocess.Popen:
    """``rulecraft serve`` on 127.0.0.1:``port``, ready (its front page answers)."""
    import httpx2

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rulecraft.compiler.cli",
            "serve",
            "--port",
            str(port),
            "--db",
            str(db),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server stopped: {proc.stderr.read().decode()[-2000:]}")
        try:
            if (
                httpx2.get(f"http://127.0.0.1:{port}/", timeout=2, trust_env=False).status_code
                == 200
            ):
                return proc
        except httpx2.HTTPError:
            time.sleep(0.2)
    stop(proc)
    raise AssertionError("the server did not answer within 60 s")


def stop(proc: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(20)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
