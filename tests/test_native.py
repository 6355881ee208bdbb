"""The native build (`rulecraft compile --native`) plays exactly the games the generated
Python modules play: the same options, log lines and results for the same seeds and
decisions, through the machine form (Game.apply) and the playout form; and within each
build the two forms play the same games in lockstep (tests/forms_helpers.py, as
tests/test_forms.py checks the Python modules).

Runs with `-m native` after `rulecraft compile --native` (CI builds one where a C compiler
is available); the two engines run in separate processes, since a process imports either the
extension modules or the Python ones.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
GAME = "march_of_progress"
PLAYER = r"""
import hashlib, json, random, shutil, sys, tempfile
from pathlib import Path

game, mode, games = sys.argv[1], sys.argv[2], int(sys.argv[3])
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

out = {}
for sid, spec in sorted(pkg.SPECS.items()):
    h = hashlib.sha256()
    for seed in range(games):
        g = Game.new(spec, None, seed)
        rng = random.Random(seed)
        while not g.finished:
            ds = g.pending()
            d = ds[rng.randrange(len(ds))]
            h.update(repr((d.player, d.kind, d.prompt, [o.id for o in d.options])).encode())
            g.apply(d.player, d.options[rng.randrange(len(d.options))].id)
        h.update(repr((g.log_for(None), g.result)).encode())
        S = new_state(spec, seed)
        playout(spec, S, random.Random(seed).random)
        h.update(repr(S[:13] + S[13:]).encode())
        # the machine form and the playout form of this build, in lockstep (FormsDiffer)
        rec = lockstep(spec, seed, most=2000)
        h.update(repr(([a.label for a in rec.decisions], rec.machine, rec.playout)).encode())
    out[sid] = h.hexdigest()
print(json.dumps(out))
"""


def _native_built() -> bool:
    return (REPO / "generated" / GAME / "native.json").exists()


def _run(mode: str, games: int) -> dict[str, str]:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            PLAYER,
            GAME,
            mode,
            str(games),
            str(REPO / "generated" / GAME),
            str(REPO / "tests"),
        ],
        capture_output=True,
        text=True,
        timeout=1200,
        env={**os.environ, "PYTHONHASHSEED": "0"},
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


@pytest.mark.native
def test_native_build_plays_the_same_games():
    if not _native_built():
        pytest.fail(
            "no native build to test: run `rulecraft compile --native march_of_progress` first"
        )
    games = int(os.environ.get("RULECRAFT_NATIVE_GAMES", "30"))
    native = _run("native", games)
    interpreted = _run("interpreted", games)
    assert native.keys() == interpreted.keys() and native
    for sid in native:
        assert native[sid] == interpreted[sid], f"{sid}: the native build plays other games"
