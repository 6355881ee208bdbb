"""The pieces of the native build (rulecraft.compiler.native) that run without a C compiler:
which modules it compiles, how many C files it compiles at once and in what order, and the
setup script it writes. The build itself is checked with `-m native` (tests/test_native.py).
"""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

import pytest
from rulecraft.compiler import native

REPO = Path(__file__).resolve().parent.parent
GENERATED = REPO / "generated"


def test_the_native_build_compiles_the_modules_with_routines_and_leaves_data_alone():
    names = {
        game: [p.name for p in native.native_modules(GENERATED / game)]
        for game in ("march_of_progress", "third_reich_diplomacy", "westphalia")
    }
    # Thirty Years War is the base scenario's data; the others override routines
    assert names["march_of_progress"] == [
        "age_of_marlborough.py",
        "engine.py",
        "politics_by_other_means.py",
        "vive_lempereur.py",
        "war_to_end_war.py",
        "ww2_in_the_west.py",
    ]
    # the four Third Reich scenarios and Westphalia's congress are data (13 of 16 MB of C)
    assert names["third_reich_diplomacy"] == ["engine.py"]
    assert names["westphalia"] == ["engine.py"]


@pytest.mark.parametrize(
    ("source", "routines"),
    [
        ("X: int = 1\nT = (1, 2)\nSPEC = register(make(T))\n", False),
        ("from .engine import Rules\nENGINE = Rules({'a': (1,)})\n", False),
        ("class S(Rules):\n    def f(self) -> int:\n        return 1\n", True),
        ("def helper() -> int:\n    return 1\n", True),
        ("if True:\n    def hidden() -> None: ...\n", False),  # not at the top level
    ],
)
def test_a_module_defines_routines_with_a_class_or_function_at_its_top_level(source, routines):
    assert native.defines_routines(source) is routines


def test_a_data_module_is_all_the_module_holds_no_routine(tmp_path: Path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "data.py").write_text("X = 1\n")
    assert native.native_modules(tmp_path) == []


def test_build_jobs_from_the_environment(monkeypatch):
    monkeypatch.setenv(native.JOBS_ENV, "3")
    assert native.build_jobs() == 3
    monkeypatch.delenv(native.JOBS_ENV)
    assert native.build_jobs() >= 1
    for bad in ("0", "two", "-1"):
        monkeypatch.setenv(native.JOBS_ENV, bad)
        with pytest.raises(native.NativeError, match=native.JOBS_ENV):
            native.build_jobs()


class _FakeCompiler:
    """What parallel_compile uses of setuptools' CCompiler; _compile records and sleeps."""

    def __init__(self, sizes: dict[str, int], tmp: Path, fail: str | None = None) -> None:
        self.tmp = tmp
        self.fail = fail
        self.started: list[str] = []
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()
        for name, size in sizes.items():
            (tmp / name).write_bytes(b"x" * size)

    def _setup_compile(self, output_dir, macros, include_dirs, sources, depends, extra):
        objects = [s.replace(".c", ".o") for s in sources]
        build = {o: (str(self.tmp / s), ".c") for o, s in zip(objects, sources, strict=True)}
        del build[objects[-1]]  # up to date: not compiled, still returned
        return macros, objects, extra or [], ["-I."], build

    def _get_cc_args(self, pp_opts, debug, before):
        return ["-c", *pp_opts]

    def _compile(self, obj, src, ext, cc_args, extra_postargs, pp_opts):
        with self.lock:
            self.started.append(Path(src).name)
            self.running += 1
            self.most = max(self.most, self.running)
        time.sleep(0.05)
        with self.lock:
            self.running -= 1
        if Path(src).name == self.fail:
            raise RuntimeError(f"cc failed on {self.fail}")


def test_parallel_compile_runs_jobs_at_once_biggest_first(tmp_path: Path, monkeypatch):
    sizes = {"small.c": 10, "engine.c": 5000, "prelude.c": 800, "runtime.c": 300, "done.c": 1}
    cc = _FakeCompiler(sizes, tmp_path)
    monkeypatch.setattr(native, "JOBS", 2)
    objects = native.parallel_compile(cc, list(sizes))
    assert objects == [s.replace(".c", ".o") for s in sizes]  # every object, in order
    assert cc.started[:2] == ["engine.c", "prelude.c"]  # the biggest start first
    assert sorted(cc.started) == ["engine.c", "prelude.c", "runtime.c", "small.c"]
    assert cc.most == 2


def test_parallel_compile_one_at_a_time_and_its_failure(tmp_path: Path, monkeypatch):
    sizes = {"a.c": 30, "b.c": 20, "c.c": 10, "d.c": 5}
    cc = _FakeCompiler(sizes, tmp_path, fail="b.c")
    monkeypatch.setattr(native, "JOBS", 1)
    with pytest.raises(RuntimeError, match="cc failed on b.c"):
        native.parallel_compile(cc, list(sizes))
    assert cc.most == 1


def test_the_setup_script_holds_the_parallel_compile_and_its_settings():
    text = native.setup_script("rulecraft.generated.toy.native", 3)
    tree = ast.parse(text)  # a whole Python module
    assigned = {
        node.targets[0].id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id in ("GROUP", "JOBS")
    }
    assert assigned == {"GROUP": "rulecraft.generated.toy.native", "JOBS": 3}
    assert any(
        isinstance(node, ast.FunctionDef) and node.name == "parallel_compile" for node in tree.body
    )
    assert "ccompiler.CCompiler.compile = parallel_compile" in text
    for part in ("multi_file=True", "ext.include_dirs.append", '"--parallel", str(JOBS)'):
        assert part in text
    # the copy runs (setuptools and mypyc left out: the fast tests run without them)
    head = text[: text.index("ccompiler.CCompiler.compile =")]
    kept = "".join(
        line
        for line in head.splitlines(keepends=True)
        if not line.startswith(("from setuptools", "from mypyc"))
    )
    space: dict[str, object] = {}
    exec(compile(kept, "setup_native.py", "exec"), space)
    assert callable(space["parallel_compile"]) and space["JOBS"] == 3
