"""Thread limits for numpy/BLAS and the embedder, set before those libraries load.

An answer's numeric work is small (one embedding, one cosine search): a BLAS pool of one thread
per core only wakes threads that fight the other requests, and the other processes on the
machine, for the cores. Measured on 2 shared cores: a question's embedding took 15.7 ms with
OpenBLAS's default pool and 5.5 ms with OPENBLAS_NUM_THREADS=1. Every process entry point calls
`limit_threads()` first; a value the operator exported is kept.
"""

from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger("ricorda.threads")

THREAD_VARIABLES = (
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "BLIS_NUM_THREADS",
)
DEFAULT_THREADS = 1


def limit_threads(threads: int = DEFAULT_THREADS) -> dict[str, str]:
    """Set every unset BLAS/OpenMP thread variable to `threads`; returns the values in force.

    The variables only count before numpy loads. When it is already loaded (a test runner, an
    embedding host program), threadpoolctl, if installed, applies the same limit to the pools
    already started; without it the limit applies from the next process on."""
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, str(threads))
    if "numpy" in sys.modules:
        _limit_loaded(threads)
    return {name: os.environ[name] for name in THREAD_VARIABLES}


def _limit_loaded(threads: int) -> None:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        log.debug("numpy was loaded before the thread limits and threadpoolctl is absent")
        return
    wanted = os.environ.get("OPENBLAS_NUM_THREADS", str(threads))
    try:
        threadpool_limits(int(wanted))
    except ValueError:
        threadpool_limits(threads)
