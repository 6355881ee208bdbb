"""Where simulated games run: in this process, in local worker processes, or on a Dask cluster.

An executor maps a function over tasks and yields the results as they finish, in any order.
A task is a chunk of game indices; game ``i`` is seeded from the run seed and ``i`` alone, so
the totals of a run do not depend on the executor, the number of workers or the order chunks
finish in (with a time-budgeted bot they do: how far it searches depends on the machine).

- :class:`LocalExecutor` (``--executor local``, the default): ``jobs`` worker processes, or
  this process when ``jobs`` is 1. Needs nothing beyond rulecraft.
- :class:`DaskExecutor` (``--executor dask://HOST:PORT``): the workers of a Dask distributed
  cluster. Needs the ``distributed`` extra (``pip install 'rulecraft[distributed]'``) here and
  rulecraft on every worker; a project's games are found on the workers at the same path as
  here. A chunk lost with its worker is run again by the scheduler (up to Dask's
  ``distributed.scheduler.allowed-failures`` times), so its games are not lost.
"""

from __future__ import annotations

import os
import socket
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar

from ..machine import GameError

__all__ = ["Executor", "LocalExecutor", "DaskExecutor", "executor_for", "max_jobs", "too_many_jobs"]

_E = TypeVar("_E", bound="_Closing")


class Executor(Protocol):
    #: how many chunks run at once (sizes the chunks so every worker stays busy)
    workers: int

    def map_unordered(
        self, fn: Callable[[Any], Any], tasks: Iterable[Any]
    ) -> Iterator[Any]:  # pragma: no cover - a protocol
        ...

    def close(self) -> None:  # pragma: no cover - a protocol
        ...


class _Closing:
    """``with executor: ...`` closes it at the end."""

    def close(self) -> None:  # pragma: no cover - each executor has its own
        pass

    def __enter__(self: _E) -> _E:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: local worker processes per core at most: more only share the same cores, and each holds
#: a copy of the engines
JOBS_PER_CORE = 4


def max_jobs() -> int:
    """The most local worker processes: :data:`JOBS_PER_CORE` per core of this machine."""
    return JOBS_PER_CORE * (os.cpu_count() or 1)


def too_many_jobs(jobs: int) -> str:
    return (
        f"{jobs} is too many: at most {max_jobs()} local processes ({JOBS_PER_CORE} per core; "
        f"this machine has {os.cpu_count() or 1}); a cluster runs more with --executor "
        "dask://HOST:PORT"
    )


class LocalExecutor(_Closing):
    """``jobs`` processes on this machine (forked, so they share the engines already imported,
    hand-written ones too); ``jobs == 1`` runs in this process. At most :func:`max_jobs`."""

    def __init__(self, jobs: int = 1) -> None:
        if jobs > max_jobs():
            raise GameError(f"--jobs {too_many_jobs(jobs)}")
        self.workers = max(1, jobs)
        self._pool: Any = None

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        tasks = list(tasks)
        if self.workers == 1 or len(tasks) <= 1:
            yield from map(fn, tasks)
            return
        if self._pool is None:  # started once, kept until close(): a sweep maps many times
            import multiprocessing

            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._pool = ctx.Pool(self.workers)
        yield from self._pool.imap_unordered(fn, tasks)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def __repr__(self) -> str:
        return f"local ({self.workers} worker{'s' if self.workers != 1 else ''})"


class DaskExecutor(_Closing):
    """The workers of the Dask scheduler at ``address`` (``tcp://HOST:PORT``)."""

    def __init__(self, address: str, timeout: float = 10.0) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise GameError(
                "--executor dask:// needs Dask distributed: pip install 'rulecraft[distributed]'"
            ) from None
        self.address = address
        host, port = _host_port(address)
        _greeted(address, host, port, timeout)
        try:
            self.client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, ValueError) as exc:  # TimeoutError is an OSError
            raise GameError(
                f"cannot reach the Dask scheduler at {address} ({exc or type(exc).__name__}); "
                "start one with `dask scheduler` and workers with `dask worker ADDRESS "
                "--nthreads 1`"
            ) from None
        threads = sum(self.client.nthreads().values())
        if threads == 0:
            try:
                self.client.wait_for_workers(1, timeout=timeout * 6)
            except TimeoutError:
                self.client.close()
                raise GameError(
                    f"the Dask scheduler at {address} has no workers (waited "
                    f"{timeout * 6:g} s); start some with `dask worker {address} --nthreads 1`"
                ) from None
            threads = sum(self.client.nthreads().values())
        self.workers = max(1, threads)

    def map_unordered(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        from distributed import KilledWorker, as_completed

        # The client holds every future until its result is read, so the scheduler runs a
        # chunk again when the worker holding it (or its result) is lost.
        futures = self.client.map(fn, list(tasks), pure=False)
        try:
            done = as_completed(futures, loop=self.client.loop, with_results=True)
            for _future, result in done:
                yield result
        except KilledWorker:
            raise GameError(
                "Dask gave up on a chunk of games: every worker that ran it died (see the "
                "workers' logs; out of memory?)"
            ) from None
        finally:
            self.client.cancel(futures)

    def close(self) -> None:
        self.client.close()

    def __repr__(self) -> str:
        return f"dask ({self.address}, {self.workers} worker threads)"


def _host_port(address: str, shown: str | None = None) -> tuple[str, int]:
    """The host and port of ``tcp://HOST:PORT`` (an IPv6 host in brackets: ``[::1]:8786``)."""
    try:
        parts = urllib.parse.urlsplit(address)
        host, port = parts.hostname, parts.port  # .port refuses a port over 65535
    except ValueError:
        host = port = None
    if not host or not port or parts.path or parts.query or parts.fragment:
        raise GameError(
            f"--executor {shown or address}: expected dask://HOST:PORT (a port of 1 to 65535; "
            "an IPv6 host in brackets, dask://[::1]:8786)"
        )
    return host, port


def _greeted(address: str, host: str, port: int, timeout: float) -> None:
    """Refuse a server at ``host:port`` that is not a Dask scheduler answering now.

    A scheduler writes its handshake as soon as it accepts a connection; Dask's client waits
    for it with no time-out, so a server that accepts and never answers would hang the run."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            greeting = sock.recv(1)
    except TimeoutError:
        raise GameError(
            f"the Dask scheduler at {address} did not answer in {timeout:g} s (it accepted "
            "the connection): is it a Dask scheduler, and is it running? Start one with "
            "`dask scheduler`"
        ) from None
    except OSError as exc:
        raise GameError(
            f"cannot reach the Dask scheduler at {address} ({exc.strerror or exc}); start one "
            "with `dask scheduler` and workers with `dask worker ADDRESS --nthreads 1`"
        ) from None
    if not greeting:
        raise GameError(
            f"the server at {address} closed the connection without a word: is it a Dask "
            "scheduler? Start one with `dask scheduler`"
        )


def executor_for(name: str | None, jobs: int = 1) -> Executor:
    """The executor ``--executor NAME`` names: ``local`` or ``dask://HOST:PORT``
    (``tcp://HOST:PORT`` too)."""
    if name is None or name == "local":
        return LocalExecutor(jobs)
    for prefix in ("dask://", "tcp://"):
        if name.startswith(prefix):
            rest = name[len(prefix) :]
            _host_port("tcp://" + rest, name)
            return DaskExecutor("tcp://" + rest)
    raise GameError(f"unknown executor {name!r} (use local or dask://HOST:PORT)")
