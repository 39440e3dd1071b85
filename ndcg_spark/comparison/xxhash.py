"""Spark's xxhash64 in numpy, over many seeds at once: the resampling's draws are hashes of
(tag, seed, draw, query_id), and computing them as arrays (queries x draws) instead of as rows is
what makes the comparison cheap. Bit for bit Spark's XXH64 (little-endian reads, seed 42, each
argument's hash the seed of the next); tests/transforms/test_resampling_arrays.py checks it
against Spark's own function on strings of every length class and on longs."""

from __future__ import annotations

from typing import Any

import numpy as np

Words = Any  # numpy arrays of uint64; the stubs of numpy's dtypes are noise here

SPARK_SEED = 42  # xxhash64()'s seed in Spark SQL
_P1 = np.uint64(0x9E3779B185EBCA87)
_P2 = np.uint64(0xC2B2AE3D27D4EB4F)
_P3 = np.uint64(0x165667B19E3779F9)
_P4 = np.uint64(0x85EBCA77C2B2AE63)
_P5 = np.uint64(0x27D4EB2F165667C5)
_MASK = (1 << 64) - 1
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


def _rotl(x: Words, r: int) -> Words:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _fmix(h: Words) -> Words:
    h = h ^ (h >> np.uint64(33))
    h = h * _P2
    h = h ^ (h >> np.uint64(29))
    h = h * _P3
    return h ^ (h >> np.uint64(32))


def _round(acc: Words, word: Words) -> Words:
    return _rotl(acc + word * _P2, 31) * _P1


def _merge(h: Words, v: Words) -> Words:
    return (h ^ _round(np.uint64(0), v)) * _P1 + _P4


def _uint64(values: Any) -> Words:
    return np.asarray(values, dtype=np.int64).view(np.uint64)


def hash_long(values: Any, seeds: Words) -> Words:
    """XXH64.hashLong of each value with each seed (numpy broadcasting of the two)."""
    h = seeds + _P5 + np.uint64(8)
    h = h ^ (_rotl(_uint64(values) * _P2, 31) * _P1)
    return _fmix(_rotl(h, 27) * _P1 + _P4)


def hash_int(value: int, seeds: Words) -> Words:
    """XXH64.hashInt: a 32-bit literal (a seed that fits an int is one in Spark SQL)."""
    h = seeds + _P5 + np.uint64(4)
    h = h ^ (np.full(1, value & 0xFFFFFFFF, dtype=np.uint64) * _P1)
    return _fmix(_rotl(h, 23) * _P2 + _P3)


def hash_bytes(data: Words, length: int, seeds: Words) -> Words:
    """XXH64.hashUnsafeBytes of equal-length byte strings, data (n, length) uint8, with seeds
    that broadcast against (n, 1): the result is (n, seeds)."""
    data = np.ascontiguousarray(data, dtype=np.uint8)
    n = data.shape[0]

    def word(at: int) -> Words:
        return data[:, at : at + 8].copy().view("<u8").astype(np.uint64).reshape(n, 1)

    offset = 0
    if length >= 32:
        v1, v2, v3, v4 = seeds + _P1 + _P2, seeds + _P2, seeds + np.uint64(0), seeds - _P1
        while offset <= length - 32:
            v1, v2 = _round(v1, word(offset)), _round(v2, word(offset + 8))
            v3, v4 = _round(v3, word(offset + 16)), _round(v4, word(offset + 24))
            offset += 32
        h = _rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = seeds + _P5 + np.zeros((n, 1), dtype=np.uint64)
    h = h + np.uint64(length)
    while offset <= length - 8:
        h = h ^ (_rotl(word(offset) * _P2, 31) * _P1)
        h = _rotl(h, 27) * _P1 + _P4
        offset += 8
    if offset + 4 <= length:
        k = data[:, offset : offset + 4].copy().view("<u4").astype(np.uint64).reshape(n, 1)
        h = h ^ (k * _P1)
        h = _rotl(h, 23) * _P2 + _P3
        offset += 4
    while offset < length:
        h = h ^ (data[:, offset].astype(np.uint64).reshape(n, 1) * _P5)
        h = _rotl(h, 11) * _P1
        offset += 1
    return _fmix(h)


def hash_text(text: str, seeds: Words) -> Words:
    """A string literal's hash with each seed (a 1-d array)."""
    raw = text.encode("utf-8")
    return hash_bytes(np.frombuffer(raw, dtype=np.uint8).reshape(1, len(raw)), len(raw), seeds.reshape(1, -1)).reshape(-1)


def literal_seed_hash(seed: int, seeds: Words) -> Words:
    """A Python int passed as F.lit: an int literal if it fits 32 bits, else a long (as PySpark
    and Spark Connect type it)."""
    if _INT_MIN <= seed <= _INT_MAX:
        return hash_int(seed, seeds)
    return hash_long(np.full(1, seed, dtype=np.int64), seeds)


def draw_seeds(tag: str, seed: int, draws: int) -> Words:
    """xxhash64(tag, seed, draw) for draw = 0 .. draws - 1: the state after the first three of
    xxhash64(tag, seed, draw, query_id)'s arguments, which the query's bytes continue."""
    start = np.full(1, SPARK_SEED, dtype=np.uint64)
    prefix = literal_seed_hash(seed, hash_text(tag, start))
    return hash_long(np.arange(draws, dtype=np.int64), prefix)


def as_signed(hashes: Words) -> Words:
    """The hashes as Spark's longs."""
    return np.asarray(hashes, dtype=np.uint64).view(np.int64)
