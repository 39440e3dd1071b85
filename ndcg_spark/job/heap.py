"""The command's process keeps the memory it frees, for the next arrays to reuse.

The embedded engine allocates and frees arrays of a column's size many times over. Arrow's own
allocator (jemalloc) and glibc's malloc both hand a large freed block back to the system, so the
next array pays the kernel to fault zeroed pages in again: on a 1M-row job, up to 1.4 s of system
time beside 0.55 s of work, on a virtual machine where faults are dear. Arrow on the C library's
allocator, with the heap neither unmapping blocks up to 32 MB nor trimmed, brings it to 0.1-0.2 s.
Set once, by the command: a library call leaves a notebook's process as it is."""

from __future__ import annotations

import ctypes
import os

# Read by pyarrow when it first allocates: set before, it costs the command's start no import (a
# Spark run imports no pyarrow at all). A value the caller set stands.
_ARROW_POOL = "ARROW_DEFAULT_MEMORY_POOL"
_SYSTEM_POOL = "system"
# glibc's mallopt parameters (malloc.h): blocks up to the mmap threshold come from the heap, and the
# heap is trimmed only past the trim threshold.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 32 * 1024 * 1024  # glibc's ceiling for it on 64-bit (HEAP_MAX_SIZE / 2)
_TRIM_THRESHOLD = 2**31 - 1  # the largest int mallopt takes


def keep_freed_memory() -> None:
    """Arrow allocates with the C library's malloc, which keeps what is freed (a C library other
    than glibc, without mallopt, stays as it is). Called before pyarrow is imported."""
    os.environ.setdefault(_ARROW_POOL, _SYSTEM_POOL)
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the process's own symbols: its C library's
    except (OSError, AttributeError):
        return
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
