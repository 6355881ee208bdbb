"""Load on `rulecraft serve`: many concurrent games over loopback, decision round trips timed.

Usage (from the repository root, with the serve extra installed)::

    python benchmarks/bench_serve.py [--games 100] [--game GAME/SCENARIO]

Starts ``rulecraft serve`` on 127.0.0.1 (a free port, a fresh database in a temporary folder),
sets up ``--games`` games through the front page's form (half a person against the random
bot, half two people), then plays them all at once: every human seat is a scripted client on
its own WebSocket that answers each decision it is given with a random legal option, until
the game ends. A round trip is the time from sending a decision to its answer (the server's
``ok``, sent after the frames it caused). Prints the median (p50) and 95th percentile (p95)
round trip, the number of errors (refused decisions, dropped sockets, and
tracebacks the server wrote: 0 expected), and the server's memory per game (its resident set
after the games are loaded, less before, divided by the games). The server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
import websockets


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _create(c: httpx2.Client, name: str, kinds: list[str], seed: int) -> list[str]:
    form = {"game": name, "seed": str(seed)} | {f"kind_{k}": v for k, v in enumerate(kinds)}
    r = c.post("/new", data=form)
    r.raise_for_status()
    return re.findall(r'<td><a class="link" href="[^"]*/play/([^"]+)">', r.text)


async def _seat(url: str, token: str, decisions: int, rng: random.Random, out: dict) -> None:
    try:
        async with websockets.connect(f"{url}/ws/{token}", max_size=1 << 24) as ws:
            made = 0
            f = json.loads(await asyncio.wait_for(ws.recv(), 120))
            while made < decisions:
                if f["type"] == "state" and f["result"] is not None:
                    out["finished"] += 1
                    return
                d = f.get("decision")
                if f["type"] != "state" or d is None or d["answered"] or not d.get("options"):
                    f = json.loads(await asyncio.wait_for(ws.recv(), 120))
                    continue
                option = rng.choice(d["options"])["id"]
                sent_at = time.perf_counter()
                await ws.send(json.dumps({"type": "decide", "option": option}))
                made += 1
                # the frames it caused, then its answer: the round trip ends at the answer
                while True:
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 120))
                    if reply["type"] == "state":
                        f = reply
                    elif reply["type"] == "ok":
                        out["latency"].append(time.perf_counter() - sent_at)
                        break
                    else:
                        out["errors"].append(reply["message"])
                        return
    except Exception as exc:  # noqa: BLE001  (every failure is an error to count)
        out["errors"].append(repr(exc))


async def _play(url: str, seats: list[str], decisions: int) -> dict:
    out: dict = {"latency": [], "errors": [], "finished": 0}
    rng = random.Random(1)
    await asyncio.gather(
        *(_seat(url, t, decisions, random.Random(rng.random()), out) for t in seats)
    )
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument(
        "--decisions", type=int, default=1000, help="per seat at most (a bound: games end first)"
    )
    ap.add_argument("--game", default="march_of_progress/thirty_years_war")
    args = ap.parse_args()
    port = _port()
    url = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "rulecraft.compiler.cli", "serve", "--port", str(port)]
        log = open(f"{tmp}/server.log", "w")  # noqa: SIM115  (closed below)
        proc = subprocess.Popen(
            [*cmd, "--db", f"{tmp}/games.sqlite3"], stdout=log, stderr=subprocess.STDOUT
        )
        try:
            with httpx2.Client(base_url=url, trust_env=False, follow_redirects=True) as c:
                for _ in range(300):
                    try:
                        c.get("/").raise_for_status()
                        break
                    except httpx2.HTTPError:
                        time.sleep(0.1)
                rss0 = _rss_kb(proc.pid)
                seats: list[str] = []
                t0 = time.perf_counter()
                for g in range(args.games):
                    kinds = ["human", "random"] if g % 2 == 0 else ["human", "human"]
                    seats += _create(c, args.game, kinds, seed=g)
                for t in seats:  # every game loaded into memory before the clock starts
                    c.get(f"/api/{t}/state").raise_for_status()
                setup = time.perf_counter() - t0
                rss1 = _rss_kb(proc.pid)
            t1 = time.perf_counter()
            out = asyncio.run(_play(url.replace("http", "ws", 1), seats, args.decisions))
            wall = time.perf_counter() - t1
            rss2 = _rss_kb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(30)
            log.close()
        tracebacks = Path(f"{tmp}/server.log").read_text().count("Traceback")
        if tracebacks:
            out["errors"].append(f"the server wrote {tracebacks} tracebacks")
    lat = sorted(out["latency"])
    p95 = lat[max(0, int(len(lat) * 0.95) - 1)] if lat else float("nan")
    print(f"{args.games} games ({len(seats)} scripted seats) of {args.game} on 127.0.0.1")
    print(f"  set up and loaded in {setup:.1f} s; played for {wall:.1f} s")
    print(
        f"  decisions: {len(lat)}  round trip p50 {statistics.median(lat) * 1000:.1f} ms  "
        f"p95 {p95 * 1000:.1f} ms  max {lat[-1] * 1000:.1f} ms"
    )
    print(
        f"  throughput {len(lat) / wall:.0f} decisions/s (clients answer at once: no thinking "
        "time, so the round trips include the queue of every other game's decisions)"
    )
    print(f"  games finished: {out['finished']} seats saw the end; errors: {len(out['errors'])}")
    for e in out["errors"][:5]:
        print(f"    {e}")
    print(
        f"  server memory: {rss0 / 1024:.1f} MB idle, {rss1 / 1024:.1f} MB with the games "
        f"loaded, {rss2 / 1024:.1f} MB after play; "
        f"{(rss1 - rss0) / args.games:.0f} KB per game loaded, "
        f"{(rss2 - rss0) / args.games:.0f} KB per game after play"
    )
    return 1 if out["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
