"""Issue 20, part 5: every bad input ends in one clear line, never a traceback, a hang or an
unbounded allocation. Each test here is a finding of a fuzz campaign on main (typed offers,
allocations, reports, files, command options, project configurations) and fails without
its fix."""

from __future__ import annotations

import io
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fuzz_helpers import no_hang
from rulecraft.compiler.cli import main
from rulecraft.runtime import Game, GameError, IllegalDecision
from rulecraft.runtime.files import FileReadError, read_file, read_text
from rulecraft.runtime.numbers import parse_int
from rulecraft.runtime.tools.terminal import play

AUSTRIA = 2  # westphalia/congress: the seat that proposes first with seed 1 (see _proposal)


def _proposal() -> tuple[Game, int]:
    """Westphalia at its first offer, and the seat that makes it."""
    g = Game.named("westphalia/congress", 1)
    for _ in range(200):
        d = g.pending()[0]
        if d.kind == "propose":
            return g, d.player
        g.apply(d.player, d.options[0].id)
    raise AssertionError("no offer to make in 200 decisions")


def _allocation() -> Game:
    """Third Reich, spring 1941, every power to commit its DPs (Germany: 7, 4 at most on one)."""
    g = Game.named("third_reich_diplomacy/situation_1941", 0)
    for seat in ("germany", "britain", "russia"):
        g.apply(g.spec.seats.index(seat), "number:0")  # no foreign aid
    return g


def _report() -> Game:
    """Third Reich 1939 at its first report of board changes (Germany reports)."""
    g = Game.named("third_reich_diplomacy/campaign_1939", 1)
    for _ in range(200):
        d = g.pending()[0]
        if d.kind == "report":
            return g
        g.apply(d.player, d.options[0].id)
    raise AssertionError("no report in 200 decisions")


def _terminal(g: Game, seat: int, typed: str) -> str:
    """What the terminal says when the player of ``seat`` types ``typed``, then quits."""
    seats = ["random"] * len(g.spec.seats)
    seats[seat] = "human"
    out = io.StringIO()
    with no_hang(20):
        play(g.spec, g.spec.scenario, seats, 1, io.StringIO(typed + "\nquit\n"), out, start=g)
    return out.getvalue()


@pytest.mark.parametrize(
    "text", ["5", "0", "007", "²", "①", "٣", "5" * 16, "9" * 5000, "", "-", "+5", " 5", "5.0"]
)
def test_a_typed_number_is_ascii_digits_and_short(text: str) -> None:
    expected = int(text) if text.isascii() and text.isdigit() and len(text) <= 15 else None
    assert parse_int(text) == expected
    assert parse_int("-" + text, signed=True) == (None if expected is None else -expected)
    assert parse_int("--5", signed=True) is None


@pytest.mark.parametrize("amount", ["²", "①", "9" * 5000, "-1", "0"])
def test_a_typed_offer_with_a_bad_amount_is_refused_in_words(amount: str) -> None:
    """Found by the input fuzzer: ``units:austria>bavaria=²`` (and ``①``, 5,000 digits)
    raised ValueError from int() in Game.apply and at the terminal."""
    g, seat = _proposal()
    offer = f"units:{g.spec.seats[seat]}>bavaria={amount}"
    with pytest.raises(IllegalDecision, match="say how many in digits") as err:
        g.apply(seat, "offer:" + offer)
    assert "\n" not in str(err.value) and len(str(err.value)) < 300
    text = _terminal(g, seat, offer)
    assert "Offer refused:" in text and "say how many in digits" in text


@pytest.mark.parametrize("value", ["--5", "9" * 5000, "²", "-", "1e3"])
def test_a_report_with_a_bad_number_is_refused_in_words(value: str) -> None:
    """Found by the input fuzzer: ``axis_hexes_britain=--5`` raised ValueError (the check
    was ``word.lstrip('-').isdigit()``); the refusal listed all 4,000 legal changes."""
    g = _report()
    seat = g.pending()[0].player
    with pytest.raises(IllegalDecision, match="is not a legal option") as err:
        g.apply(seat, f"report:axis_hexes_britain={value}")
    assert "\n" not in str(err.value) and len(str(err.value)) < 1500
    said = _terminal(g, seat, f"axis_hexes_britain={value}")
    assert "axis_hexes_britain cannot be" in said and "9" * 41 not in said


@pytest.mark.parametrize("points", ["999999999", str(10**30), "5", "99999999999999999"])
def test_an_allocation_over_its_bound_is_refused_before_it_is_built(points: str) -> None:
    """Found by the input fuzzer: ``portugal=999999999`` built a list of a billion targets
    before checking it (MemoryError), and ``alloc:...=10**30`` never returned."""
    g = _allocation()
    germany = g.spec.seats.index("germany")
    with no_hang(10), pytest.raises(IllegalDecision, match="at most 7 points, at most 4 on one"):
        g.apply(germany, f"alloc:germany_portugal={points}")
    if len(points) <= 9:  # the terminal reads at most nine digits
        said = _terminal(g, germany, f"portugal={points}")
        assert f"portugal={int(points)} is over the limit: at most 4 points" in said
    g.apply(germany, "alloc:germany_portugal=4")  # the bound itself is legal


def test_an_allocation_in_all_over_its_points_is_refused() -> None:
    g = _allocation()
    germany = g.spec.seats.index("germany")
    with pytest.raises(GameError):
        g.apply(germany, "alloc:germany_portugal=4,germany_sweden=4")


# -- files a user names ------------------------------------------------------------------


def _special(tmp_path: Path, kind: str) -> str:
    if kind == "fifo":
        fifo = tmp_path / "save.json"
        os.mkfifo(fifo)  # nobody ever writes to it: reading it would wait for ever
        return str(fifo)
    if kind == "folder":
        return str(tmp_path)
    return "/dev/zero"  # reading it to its end never ends, and fills memory


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder"])
def test_a_file_a_user_names_must_be_a_regular_file(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz campaign: ``rulecraft sheet ... --record FIFO`` blocked for ever and
    ``--record /dev/zero`` read until memory ran out; so did ``play --load``."""
    path = _special(tmp_path, kind)
    out = tmp_path / "record.html"
    with no_hang(20):
        code = main(["sheet", "third_reich_diplomacy", "--record", path, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and not out.exists()
    assert err.startswith(f"rulecraft: error: {path}: cannot read the save: it is ")
    assert err.count("\n") == 1 and "give the path of a file" in err
    with no_hang(20):
        code = main(["play", "march_of_progress/thirty_years_war", "--load", path])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith(f"rulecraft: error: cannot read {path}: it is ")
    with no_hang(20):
        code = main(["test", path])
    out_err = capsys.readouterr()
    assert code == 1 and f"can't read {path}: it is " in out_err.err


def test_read_file_refuses_a_file_over_its_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 101)
    with pytest.raises(FileReadError, match=r"big.json: it is 101 bytes, more than the 100 bytes"):
        read_file(big, limit=100)
    assert read_file(big, limit=101) == b"x" * 101
    link = tmp_path / "link.json"
    link.symlink_to(big)  # a link to a regular file is read
    assert read_file(link) == b"x" * 101
    with pytest.raises(FileReadError, match="no such file"):
        read_file(tmp_path / "none.json")
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9")
    with pytest.raises(FileReadError, match="not UTF-8 text"):
        read_text(tmp_path / "latin.txt")


# -- commands ------------------------------------------------------------------------------


def test_init_into_a_file_is_an_error_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz campaign: ``rulecraft init FILE`` was a NotADirectoryError traceback."""
    path = tmp_path / "notes.txt"
    path.write_text("keep")
    assert main(["init", str(path)]) == 1
    assert capsys.readouterr().err == (
        f"rulecraft: error: {path} is a file, not a folder: name a new or empty folder to init\n"
    )
    assert main(["init", str(path / "inside")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rulecraft: error: cannot write {path}") and err.count("\n") == 1
    assert path.read_text() == "keep"


@contextmanager
def _silent_server(lifetime: float = 30.0) -> Iterator[int]:
    """A server on 127.0.0.1 that accepts connections and never says a word; it stops by
    itself after ``lifetime`` seconds (or when the block ends). Yields its port."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()
    deadline = time.monotonic() + lifetime

    def serve() -> None:
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue
        for conn in held:
            conn.close()
        server.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)


def test_a_scheduler_that_never_answers_is_an_error_in_words() -> None:
    """Found by the fuzz campaign: a server that accepts the connection and never answers
    hung ``--executor dask://...`` for ever (Dask waits for the handshake without a limit)."""
    pytest.importorskip("distributed")
    from rulecraft.runtime.tools.executors import DaskExecutor

    with _silent_server() as port, no_hang(30):
        start = time.monotonic()
        with pytest.raises(
            GameError, match=r"did not answer in 1 s \(it accepted the connection\)"
        ):
            DaskExecutor(f"tcp://127.0.0.1:{port}", timeout=1)
        assert time.monotonic() - start < 10


@pytest.mark.parametrize(
    "address",
    [
        "dask://[::1",
        "dask://[::1]:x",
        "dask://::1:8786",
        "dask://h:0",
        "dask://h:99999",
        "dask://h:²",
    ],
)
def test_a_malformed_scheduler_address_is_an_error_in_words(
    address: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz campaign: ``dask://[::1`` was a raw ValueError."""
    args = ["simulate", "march_of_progress/thirty_years_war", "--games", "5"]
    assert main([*args, "--executor", address]) == 1
    assert capsys.readouterr().err == (
        f"rulecraft: error: --executor {address}: expected dask://HOST:PORT (a port of 1 to "
        "65535; an IPv6 host in brackets, dask://[::1]:8786)\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--jobs", "100000"],
            f"argument --jobs: 100000 is too many: at most {4 * (os.cpu_count() or 1)} local "
            f"processes (4 per core; this machine has {os.cpu_count() or 1}); a cluster runs "
            "more with --executor dask://HOST:PORT",
        ),
        (
            ["--games", str(10**26)],
            f"argument --games: {10**26} games is too many for one run: at most 10,000,000 "
            "(each game's outcome is kept in memory); run several seeds and add them up",
        ),
        (["--games", "-5"], "argument --games: expected a positive integer, not '-5'"),
    ],
)
def test_counts_of_games_and_processes_are_bounded(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz campaign: ``--jobs 100000`` asked for 100,000 processes and
    ``--games 10**26`` was accepted."""
    args = ["simulate", "march_of_progress/thirty_years_war", "--games", "5"]
    assert main([*args, *argv]) == 1
    assert capsys.readouterr().err == f"rulecraft: error: {message}\n"


def test_the_api_bounds_processes_and_games_too() -> None:
    from rulecraft.runtime.tools.executors import LocalExecutor, max_jobs
    from rulecraft.runtime.tools.simulate import simulate

    with pytest.raises(GameError, match=r"--jobs 100000 is too many: at most \d+ local"):
        LocalExecutor(100_000)
    assert LocalExecutor(max_jobs()).workers == max_jobs()
    spec = Game.named("march_of_progress/thirty_years_war", 1).spec
    with pytest.raises(GameError, match="too many for one run: at most 10,000,000"):
        simulate(spec, "thirty_years_war", 10**26, 0, ["random"])


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ("-1", "victory_vps is a count (the rules give 18); it cannot be -1"),
        ("-3..3", "victory_vps is a count (the rules give 18); it cannot be -3"),
        (
            "12,1000000",
            "victory_vps is at most 180 in a sweep (10 times the rules' 18), not 1000000",
        ),
    ],
)
def test_a_sweep_keeps_a_count_a_count(
    values: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz campaign: ``sweep --set victory_vps=-1`` was accepted (the rules
    declare a constant's type, not its range: a count stays one, within ten times its value)."""
    argv = ["sweep", "march_of_progress/thirty_years_war", "--set", f"victory_vps={values}"]
    assert main(argv) == 1
    assert capsys.readouterr().err == f"rulecraft: error: --set victory_vps={values}: {message}\n"


# -- project configurations ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ('rules = "rules"\npackage = [\n', "rulecraft.toml:3:1: not valid TOML: invalid value"),
        ('rules = "rules"\nx = 1 = 2\n', "rulecraft.toml:2:7: not valid TOML: expected newline"),
        ('rule = "rules"\n', "rulecraft.toml: unknown key 'rule' (known: rules, generated"),
        (
            'package = "rulecraft.runtime"\n',
            "rulecraft.toml: package 'rulecraft.runtime' is taken ('rulecraft' is rulecraft "
            "itself): name the engines' package after your project",
        ),
        ('package = "rulecraft"\n', "package 'rulecraft' is taken ('rulecraft' is rulecraft"),
        ('package = "json"\n', "('json' is a module of the standard library)"),
        # found by the configuration fuzzer: a NUL in a folder's name was a raw ValueError
        ('generated = "a\\u0000b"\n', "rulecraft.toml: generated holds a control character"),
        # found by the configuration fuzzer (input 2102): a name too long for the file system
        # was a raw OSError
        (
            f'generated = "{"a" * 300}"\n',
            "rulecraft.toml: generated names a path the system cannot use (File name too long)",
        ),
    ],
)
@pytest.mark.parametrize("command", [["list"], ["play", "march_of_progress"], ["check"]])
def test_a_broken_project_config_is_an_error_for_every_command(
    tmp_path: Path,
    config: str,
    message: str,
    command: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found by the fuzz campaign: ``rulecraft list`` ignored a broken rulecraft.toml (and
    went on with the bundled games), and ``package = "rulecraft.runtime"`` was accepted and
    broke every game with an ImportError traceback."""
    (tmp_path / "rulecraft.toml").write_text(config)
    (tmp_path / "rules").mkdir()
    monkeypatch.chdir(tmp_path)
    assert main(command) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rulecraft: error: {tmp_path / 'rulecraft.toml'}")
    assert message in err and err.count("\n") == 1


def test_compile_does_not_write_through_a_link_out_of_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by the fuzz campaign: a ``generated/<game>`` that is a symbolic link out of the
    project was written through."""
    from fuzz_helpers import scratch

    root = scratch("toy")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "generated" / "toy").symlink_to(outside)
    assert main(["--project", str(root), "compile"]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"rulecraft: error: generated/toy is a symbolic link out of the project (to {outside}): "
        f"compile writes only inside {root}; remove the link\n"
    )
    assert list(outside.iterdir()) == []
    (root / "generated" / "toy").unlink()
    inside = root / "engines_toy"
    inside.mkdir()
    (root / "generated" / "toy").symlink_to(inside)  # a link inside the project is fine
    assert main(["--project", str(root), "compile"]) == 0
    assert (inside / "__init__.py").exists()


@pytest.mark.parametrize("kind", ["fifo", "folder", "dangling link"])
def test_a_project_config_that_is_not_a_file_is_an_error(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A rulecraft.toml that is a pipe, a folder or a dangling link was passed over (the
    folder was then a project with the defaults): a broken configuration is an error."""
    config = tmp_path / "rulecraft.toml"
    if kind == "fifo":
        os.mkfifo(config)
    elif kind == "folder":
        config.mkdir()
    else:
        config.symlink_to(tmp_path / "nowhere.toml")
    (tmp_path / "rules").mkdir()
    with no_hang(20):
        assert main(["--project", str(tmp_path), "list"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rulecraft: error: cannot read {config}: ") and err.count("\n") == 1


def test_coverage_reads_only_regular_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``rulecraft coverage`` read every rules file whole: a pipe among them hung it."""
    from fuzz_helpers import scratch

    root = scratch("toy")
    fifo = root / "rules" / "toy" / "notes.yaml"
    os.mkfifo(fifo)
    with no_hang(20):
        (tmp_path / "index").mkdir()
        assert main(["--project", str(root), "coverage", "--index", str(tmp_path / "index")]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"rulecraft: error: cannot read {fifo}: it is not a regular file (a pipe, a device or "
        "a socket); give the path of a file\n"
    )


def test_compile_passes_over_a_pipe_among_the_generated_files() -> None:
    """Looking for stale generated files, compile read every ``*.py`` under generated/: a
    pipe named like a module hung it. It is not rulecraft's, so it stays."""
    from fuzz_helpers import scratch

    root = scratch("toy")
    (root / "generated" / "toy").mkdir()
    os.mkfifo(root / "generated" / "toy" / "stray.py")
    with no_hang(60):
        assert main(["--project", str(root), "compile"]) == 0
    assert (root / "generated" / "toy" / "stray.py").exists()
