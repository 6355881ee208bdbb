"""Incremental compile: ``rulecraft compile`` as a whole command when nothing changed, when
one game changed, and in full.

Usage (from the repository root)::

    python benchmarks/bench_incremental.py [REPS=3]

The bundled ``rules/`` and ``generated/`` are copied into a temporary project (the checkout's
own cache and files are left alone), then each command runs as a process of its own, its
wall clock measured from outside (start-up and imports included, as a designer sees it);
medians of ``REPS``:

* ``full (--no-cache)``: ``rulecraft compile --no-cache``, every game through the pipeline;
* ``no-op compile`` and ``no-op compile --check``: nothing changed since the last compile;
* ``one game changed``, per game with an engine: a comment appended to its ``game.yaml``
  (the key changes, the output does not), then ``rulecraft compile``: that game is compiled,
  the others are skipped.

It also runs a no-op with ``python -X importtime`` and lists which of the compiler's heavy
dependencies (lark, jinja2, jsonschema) it imported: none is the aim.
"""

from __future__ import annotations

import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("lark", "jinja2", "jsonschema", "rulecraft.compiler.codegen", "rulecraft.compiler.checker")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(project: Path, *argv: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``rulecraft compile`` process (which must succeed); the CPU
    time includes its ruff subprocesses."""
    cmd = [sys.executable, "-m", "rulecraft.compiler.cli", "compile", "--project", str(project)]
    start, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run([*cmd, *argv], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{shlex.join([*cmd, *argv])} failed:\n{proc.stderr}")
    return seconds, _cpu() - cpu


def _imported(project: Path) -> list[str]:
    """The heavy modules a no-op compile imports."""
    cmd = [sys.executable, "-X", "importtime", "-m", "rulecraft.compiler.cli", "compile"]
    proc = subprocess.run(
        [*cmd, "--project", str(project)], capture_output=True, text=True, check=True
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    return sorted(n for n in names if n in HEAVY)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    reps = int(argv[0]) if argv else 3
    print(f"$ {shlex.join(['python', 'benchmarks/bench_incremental.py', *argv])}")
    bytecode = "off" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "on"
    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cpus, load {os.getloadavg()[0]:.2f}, bytecode cache writes "
        f"{bytecode}, {time.strftime('%Y-%m-%d %H:%M')}"
    )
    with tempfile.TemporaryDirectory(prefix="rulecraft-bench-") as tmp:
        project = Path(tmp)
        shutil.copytree(ROOT / "rules", project / "rules")
        shutil.copytree(ROOT / "generated", project / "generated")
        games = sorted(p.name for p in (project / "rules").iterdir() if p.is_dir())
        engines = [g for g in games if (project / "rules" / g / "flow.yaml").is_file()]
        print(f"a copy of rules/ ({', '.join(games)}); {reps} reps, medians\n")

        _run(project)  # the first compile: no cache yet, and it writes one
        rows: list[tuple[str, list[tuple[float, float]]]] = []
        rows.append(("full (--no-cache)", [_run(project, "--no-cache") for _ in range(reps)]))
        rows.append(("no-op compile", [_run(project) for _ in range(reps)]))
        rows.append(("no-op compile --check", [_run(project, "--check") for _ in range(reps)]))
        for game in engines:
            times = []
            for i in range(reps):
                with open(project / "rules" / game / "game.yaml", "a", encoding="utf-8") as f:
                    f.write(f"# bench edit {i}\n")
                times.append(_run(project))
            rows.append((f"one game changed: {game}", times))
        heavy = _imported(project)

    print(f"{'':42}{'wall s':>8}{'cpu s':>8}   (wall min-max)")
    for name, times in rows:
        wall = [t[0] for t in times]
        cpu = statistics.median(t[1] for t in times)
        print(
            f"{name:42}{statistics.median(wall):8.2f}{cpu:8.2f}   {min(wall):.2f}-{max(wall):.2f}"
        )
    print("\nheavy modules a no-op compile imports: " + (", ".join(heavy) if heavy else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
