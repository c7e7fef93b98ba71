"""Spread CPU-bound work over the machine's cores, results in order.

A retag after ``topics teach`` tags every stored paper again: about 150 µs a
paper of real text, so 15 s at 100k papers on one core. The work is the same
pure function applied to each week file, so forked worker processes can share
it; the parent keeps all the writing. Workers are forked (they inherit the
compiled topics and models instead of rebuilding them) and only where ``fork``
exists; elsewhere, or with ``PAPERTRACK_WORKERS=1``, the work runs in this
process and gives the same results.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any, TypeVar

__all__ = ["WORKERS_ENV", "forked_map", "worker_count"]

#: Environment variable: how many processes CPU-bound work may use (1: this one only).
WORKERS_ENV = "PAPERTRACK_WORKERS"
#: Never more workers than this: past it, reading and writing week files in the
#: parent is what takes the time.
MAX_WORKERS = 8

T = TypeVar("T")
R = TypeVar("R")

#: (function, shared state) for the workers; set before the pool forks.
_JOB: tuple[Callable[[Any, Any], Any], Any] | None = None
#: The process that forked the pool's workers (a worker whose parent is another has lost it).
_PARENT = 0


def worker_count() -> int:
    """How many processes to use: ``PAPERTRACK_WORKERS`` if set, else the usable cores.

    Raises:
        UsageError: the variable is set to something other than a whole number >= 1.
    """
    given = os.environ.get(WORKERS_ENV, "").strip()
    if given:
        if not given.isdigit() or int(given) < 1:
            from papertrack.errors import UsageError
            from papertrack.text import visible

            raise UsageError(
                f"{WORKERS_ENV}={visible(given)!r} is not a number of processes. "
                "Set it to 1 or more (1: no worker processes), or unset it"
            )
        return min(MAX_WORKERS, int(given))
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(MAX_WORKERS, cores))


def worker_signals() -> None:
    """Signals in a forked worker: Ctrl-C and SIGHUP are the parent's, SIGTERM the default's.

    Ctrl-C reaches the whole process group: the parent stops the pool and reports
    what was kept, and the workers must not each print a traceback of their own.
    The parent's SIGTERM handler raises; a worker is stopped by SIGTERM when its
    pool is (terminate()), and must simply die.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # A closed terminal hangs up the whole process group: the parent stops the pool.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    # Forked while the parent held Ctrl-C (forked_map): ignored here, so let it go.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _start() -> None:
    """Set up a forked worker: quiet on Ctrl-C and SIGTERM, and one thread for BLAS."""
    worker_signals()
    _die_with_parent()
    # The workers already take every core, and OpenBLAS (numpy's and scipy's) starts
    # a thread per core in each of them: on 2 cores the six fits of a cross-validation
    # took 2.7 s in 2 workers, against 2.1 s one after the other in one process.
    # With one BLAS thread a worker they take 1.4 s. It is only a matter of speed:
    # a BLAS that cannot be limited (or a limit that fails) leaves the worker as it is.
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1)
    except Exception:  # noqa: BLE001 - any failure here only costs speed
        pass


def _die_with_parent() -> None:
    """Have Linux stop this worker (SIGTERM, quiet here) when the parent dies.

    A parent killed with SIGKILL (cron's `timeout -s KILL`, the OOM killer) left its
    workers to finish their task and print a BrokenPipeError traceback each when
    they sent the result back: four of them in a cron mail after a killed teach.
    """
    import os
    import signal

    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not Linux: the worker ends as the pool's own code lets it
    if os.getppid() != _PARENT:
        os._exit(0)  # the parent died before the request took hold


def _run(item: Any) -> Any:
    assert _JOB is not None
    func, state = _JOB
    try:
        return func(state, item)
    except Exception as exc:
        import pickle

        try:
            pickle.loads(pickle.dumps(exc))
        except Exception:  # noqa: BLE001 - whatever cannot travel back to the parent
            # One that cannot reach the parent broke the pool, and was said as a worker
            # "stopped unexpectedly (out of memory, or killed)". Its words travel.
            raise _Unsent(f"{type(exc).__name__}: {exc}") from None
        raise


class _Unsent(RuntimeError):
    """An error a worker raised that could not be sent back as it was."""


def forked_map(
    func: Callable[[Any, T], R], state: Any, items: Sequence[T], *, spread: bool = True
) -> Generator[R, None, None]:
    """``func(state, item)`` for each item, in order, in forked workers if worthwhile.

    ``func`` must be a module-level function and ``state`` is inherited, not
    pickled, so it may hold compiled catalogs. Results are pickled back, so keep
    them small. With ``spread`` false, one worker, or no ``fork``, everything
    runs here. Consume the iterator fully or close it: closing stops the pool.

    Raises:
        UsageError: ``PAPERTRACK_WORKERS`` is not a number (raised here, before
            any work, not when the iterator is first read).
    """
    workers = min(worker_count(), len(items))  # checked even when not spreading
    if not spread:
        workers = 1
    if workers < 2 or not _can_fork():
        return (func(state, item) for item in items)
    return _pooled(func, state, items, workers)


def _pooled(
    func: Callable[[Any, T], R], state: Any, items: Sequence[T], workers: int
) -> Generator[R, None, None]:
    import multiprocessing
    import signal
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _JOB, _PARENT
    _JOB = (func, state)
    _PARENT = os.getpid()
    # Ctrl-C held while the workers fork: one that came during a fork was raised in
    # logging's fork hook, where Python ignores an exception ("Exception ignored in
    # _releaseLock"), and the work ran on to the end (1 in 25 interrupted teaches).
    # It is raised once the workers stand, and the work is stopped.
    held = {signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    pool: ProcessPoolExecutor | None = None
    try:
        try:
            pool = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("fork"), initializer=_start
            )
            results = pool.map(_run, items)  # every item handed out: the workers fork here
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, held)
        # Not multiprocessing.Pool: a worker that died there (the OOM killer, a kill
        # of a "stray" python) was waited for for ever, and SIGTERM could not stop the
        # wait. The command held the store lock, and every cron run after it failed.
        yield from results
    except BrokenProcessPool:
        from papertrack.errors import PapertrackError

        raise PapertrackError(
            "a worker process stopped unexpectedly (out of memory, or killed). What was "
            "written before is kept; run the command again, with PAPERTRACK_WORKERS=1 to "
            "use a single process"
        ) from None
    except KeyboardInterrupt:
        if pool is not None and sys.stderr.isatty():
            # Each worker ends the week file it has in hand: up to 12 s on the 83,510
            # real papers, with nothing said meanwhile.
            sys.stderr.write(
                "Stopping: each worker finishes the file it is writing "
                "(press Ctrl-C again to stop them at once).\n"
            )
            sys.stderr.flush()
        raise
    finally:
        _JOB = None
        if pool is not None:
            _stop(pool)


def _stop(pool: Any) -> None:
    """Stop ``pool``, done or stopped early (an error, Ctrl-C, SIGTERM): the items not
    started are dropped, and each worker ends with the one it has (a week file, a fit).

    A second Ctrl-C or SIGTERM during that wait (an impatient user presses twice;
    GNU ``timeout`` signals the command and then its whole process group) cut the
    shutdown short, and the workers were left waiting for work that never came: the
    command hung at exit for good, holding the store's lock (1 run in 8 of ``timeout
    -s INT 3.4 papertrack topics teach ...`` on the 83,510-paper store). The workers
    are then stopped outright, with further signals held off until they are, and
    the pool's manager thread is waited for: raised at once, the interpreter's exit
    raced that thread closing its pipe, and printed "Exception ignored ... OSError:
    [Errno 9] Bad file descriptor" in 4 of 22 double Ctrl-Cs.
    """
    try:
        pool.shutdown(wait=True, cancel_futures=True)
    except BaseException:
        with _signals_held():
            processes = list((getattr(pool, "_processes", None) or {}).values())
            for process in processes:
                try:
                    process.terminate()
                except Exception:  # noqa: BLE001, S110 - one already gone, or never started
                    pass
            manager = getattr(pool, "_executor_manager_thread", None)
            if manager is not None:
                manager.join(timeout=5)  # it closes its pipes before the exit, not during it
            for process in processes:
                with contextlib.suppress(Exception):
                    process.join(timeout=1)  # reaped, not left a zombie
        raise


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP do nothing inside (the command is stopping already:
    a third signal cut the stopping of the workers short), and as before after."""
    import signal
    import threading

    held: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            handler = signal.getsignal(number)
            if handler not in (None, signal.SIG_IGN):
                held[number] = handler
                signal.signal(number, lambda *_: None)
    try:
        yield
    finally:
        for held_number, handler in held.items():
            signal.signal(held_number, handler)


def _can_fork() -> bool:
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()
