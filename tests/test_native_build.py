"""The pieces of the native build (rulecraft.compiler.native) that run without a C compiler:
which modules it compiles, how many C files it compiles at once and in what order, and the
setup script it writes. The build itself is checked with `-m native` (tests/test_native.py).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
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
        and node.targets[0].id in ("GROUP", "JOBS", "PART_LINES")
    }
    assert assigned == {
        "GROUP": "rulecraft.generated.toy.native",
        "JOBS": 3,
        "PART_LINES": native.PART_LINES,
    }
    defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert {"parallel_compile", "split_c_file", "c_pieces", "c_piece_name"} <= defined
    assert "ccompiler.CCompiler.compile = parallel_compile" in text
    for part in (
        "multi_file=True",
        "ext.include_dirs.append",
        '"--parallel", str(JOBS)',
        "split_c_file(src, ext.include_dirs)",
    ):
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
    assert space["C_TOKEN"].pattern == native.C_TOKEN.pattern  # the copy scans as the original


# ------------------------------------------------------------------ a big C file in parts

HEADER = """\
#include <stdio.h>
int shared_value(int x);
int uses_helper(int x);
int uses_own_prototype(int x);
int with_tricky_text(void);
extern int counter;
"""

#: a C file as mypyc writes one: header-declared functions (which may move), a static
#: helper, a prototype of the file's own, a table, text with braces and semicolons in it
SOURCE = r"""#include "toy.h"

static int helper(int x)
{
    return x + 1;
}
int own(int x);
static const char *NAMES[] = {"a}", "b;", "{c"};
int counter = 0;

int shared_value(int x) {
    /* a comment { with braces ; */
    counter += 1;
    return x * 2; // trailing } comment
}

int uses_helper(int x) {
    return helper(x);
}

int uses_own_prototype(int x) {
    return own(x);
}

int with_tricky_text(void) {
    const char *s = "}\\";
    char c = '}';
    return (int)s[0] + c;
}
int own(int x) { return x - 1; }

int main(void) {
    int a = shared_value(3), b = uses_helper(3), c = uses_own_prototype(3);
    printf("%d %d %d %d %d %d\n", a, b, c, with_tricky_text(), counter, (int)NAMES[0][1]);
    return 0;
}
"""


def test_c_pieces_are_the_top_level_definitions_whole_whatever_text_they_hold():
    text = SOURCE
    pieces = native.c_pieces(text)
    assert "".join(pieces) == text
    names = [native.c_piece_name(piece) for piece in pieces]
    assert names == [
        "helper",
        "own",
        "NAMES",
        "counter",
        "shared_value",
        "uses_helper",
        "uses_own_prototype",
        "with_tricky_text",
        "own",
        "main",
    ]
    assert pieces[0].startswith('#include "toy.h"')  # preprocessor lines go with what follows


def _toy(tmp_path: Path) -> Path:
    (tmp_path / "toy.h").write_text(HEADER)
    (tmp_path / "toy.c").write_text(SOURCE)
    return tmp_path / "toy.c"


def test_a_big_c_file_splits_into_parts_of_the_functions_the_header_declares(
    tmp_path: Path, monkeypatch
):
    source = _toy(tmp_path)
    before = native.c_pieces(source.read_text())
    monkeypatch.setattr(native, "PART_LINES", 20)
    sources = native.split_c_file(str(source), [])
    assert sources == [str(source), str(tmp_path / "toy__part1.c"), str(tmp_path / "toy__part2.c")]
    kept, part1, part2 = (Path(s).read_text() for s in sources)
    # what moved: declared in the header, and using nothing the file alone defines
    moved = {"shared_value", "with_tricky_text"}
    for part in (part1, part2):
        assert part.startswith('#include "toy.h"\n')
        assert {native.c_piece_name(p) for p in native.c_pieces(part)} < moved
    assert "int shared_value(int x) {" in part1 + part2
    assert "int with_tricky_text(void) {" in part1 + part2
    # what stays: the static helper and its user, the file's own prototype and its user
    staying = [native.c_piece_name(p) for p in native.c_pieces(kept)]
    assert staying == [
        "helper",
        "own",
        "NAMES",
        "counter",
        "uses_helper",
        "uses_own_prototype",
        "own",
        "main",
    ]
    # nothing lost, nothing written twice
    pieces = native.c_pieces(kept) + native.c_pieces(part1) + native.c_pieces(part2)
    assert sorted(p.removeprefix('#include "toy.h"\n') for p in pieces) == sorted(
        p.removeprefix('#include "toy.h"\n') for p in before
    )


def test_a_c_file_under_the_part_size_or_with_nothing_to_move_stays_whole(
    tmp_path: Path, monkeypatch
):
    source = _toy(tmp_path)
    text = source.read_text()
    assert native.split_c_file(str(source), []) == [str(source)]  # 40 lines: one part
    monkeypatch.setattr(native, "PART_LINES", 20)
    (tmp_path / "toy.h").write_text("#include <stdio.h>\n")  # the header declares nothing
    assert native.split_c_file(str(source), [str(tmp_path)]) == [str(source)]
    assert source.read_text() == text


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_the_parts_of_a_c_file_build_the_same_program(tmp_path: Path, monkeypatch):
    whole = tmp_path / "whole"
    whole.mkdir()
    split = tmp_path / "split"
    split.mkdir()
    monkeypatch.setattr(native, "PART_LINES", 20)
    runs = []
    for folder, sources in (
        (whole, [str(_toy(whole))]),
        (split, native.split_c_file(str(_toy(split)), [])),
    ):
        subprocess.run(["cc", "-Wall", "-Werror", "-o", str(folder / "toy"), *sources], check=True)
        runs.append(subprocess.run([str(folder / "toy")], capture_output=True, text=True).stdout)
    assert len(sources) == 3
    assert runs[0] == runs[1] == "6 4 2 250 1 125\n"
