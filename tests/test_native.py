"""The native build (`rulecraft compile --native`) plays exactly the games the generated
Python modules play: the same options, log lines and results for the same seeds and
decisions, through the machine form (Game.apply) and the playout form; and within each
build the two forms play the same games in lockstep (tests/forms_helpers.py, as
tests/test_forms.py checks the Python modules).

Every bundled game with a native build is checked, `RULECRAFT_NATIVE_GAMES` games (default
30) of each of its scenarios, each cut after `RULECRAFT_NATIVE_MOST` decisions (default
2000). Runs with `-m native` after `rulecraft compile --native` (CI builds every game where a
C compiler is available); a game without a native build is skipped, and the test fails when
no game has one. The two engines run in separate processes, side by side, since a process
imports either the extension modules or the Python ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "generated"
#: the bundled games (generated/<game>/)
GAMES = sorted(p.parent.name for p in GENERATED.glob("*/__init__.py"))
PLAYER = r"""
import hashlib, json, random, shutil, sys, tempfile
from pathlib import Path

game, mode, games, most = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[6])
sys.path.insert(0, sys.argv[5])  # tests/: the lockstep of the two forms
from forms_helpers import lockstep
if mode == "interpreted":
    # a copy of the generated Python modules, imported under another package name
    tmp = Path(tempfile.mkdtemp())
    src = Path(sys.argv[4])
    skip = shutil.ignore_patterns("*.so", "*.pyd", "native.json", "__pycache__")
    shutil.copytree(src, tmp / "interp", ignore=skip)
    sys.path.insert(0, str(tmp))
    import interp as pkg
else:
    import importlib
    pkg = importlib.import_module(f"rulecraft.generated.{game}")
    loaded = [sys.modules[m] for m in sys.modules if m.startswith(pkg.__name__)]
    if not any(getattr(m, "__file__", "").endswith(".so") for m in loaded):
        sys.exit("no native module was imported")
from rulecraft.runtime import Game, new_state, playout

OPTIONS = 50
out = {}
for sid, spec in sorted(pkg.SPECS.items()):
    h = hashlib.sha256()
    for seed in range(games):
        g = Game.new(spec, None, seed)
        rng = random.Random(seed)
        for _ in range(most):
            if g.finished:
                break
            ds = g.pending()
            d = ds[rng.randrange(len(ds))]
            # the options of a big decision (Third Reich's) are made as they are read: the
            # first OPTIONS of them, and the one chosen
            n = len(d.options)
            chosen = d.options[rng.randrange(n)].id
            shown = [d.options[i].id for i in range(min(n, OPTIONS))]
            h.update(repr((d.player, d.kind, d.prompt, n, shown, chosen)).encode())
            g.apply(d.player, chosen)
        h.update(repr((g.log_for(None), g.result)).encode())
        S = new_state(spec, seed)
        playout(spec, S, random.Random(seed).random)
        h.update(repr(S[:13] + S[13:]).encode())
        # the machine form and the playout form of this build, in lockstep (FormsDiffer)
        rec = lockstep(spec, seed, most=most)
        h.update(repr(([a.label for a in rec.decisions], rec.machine, rec.playout)).encode())
    out[sid] = h.hexdigest()
print(json.dumps(out))
"""


def _native_built(game: str) -> bool:
    return (GENERATED / game / "native.json").exists()


def _start(game: str, mode: str, games: int, most: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            PLAYER,
            game,
            mode,
            str(games),
            str(GENERATED / game),
            str(REPO / "tests"),
            str(most),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )


def _result(proc: subprocess.Popen[str]) -> dict[str, str]:
    try:
        out, err = proc.communicate(timeout=1200)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out)


@pytest.mark.native
def test_some_game_has_a_native_build():
    if not any(map(_native_built, GAMES)):
        pytest.fail("no native build to test: run `rulecraft compile --native` first")


@pytest.mark.native
@pytest.mark.parametrize("game", GAMES)
def test_native_build_plays_the_same_games(game: str):
    if not _native_built(game):
        pytest.skip(f"no native build of {game}: `rulecraft compile --native {game}`")
    games = int(os.environ.get("RULECRAFT_NATIVE_GAMES", "30"))
    most = int(os.environ.get("RULECRAFT_NATIVE_MOST", "2000"))
    # one process each, side by side
    procs = {mode: _start(game, mode, games, most) for mode in ("native", "interpreted")}
    native, interpreted = (_result(procs[mode]) for mode in ("native", "interpreted"))
    assert native.keys() == interpreted.keys() and native
    for sid in native:
        assert native[sid] == interpreted[sid], f"{game}/{sid}: the native build plays other games"
