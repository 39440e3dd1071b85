"""Helpers of the embedded engine's Arrow columns, shared by its checks and its scoring."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Codes:
    """A column's codes and the distinct values they rank: values[codes[i]] is row i's value, as
    text. The checks compute them for their keys and the scoring reuses them (see merged)."""

    codes: Ints
    values: pa.Array

    def take(self, rows: Ints) -> Codes:
        """The codes of these rows (the values stay: codes keep their order, some go unused)."""
        return Codes(self.codes[rows], self.values)


def coded(array: pa.ChunkedArray | pa.Array) -> Codes:
    """Each value's rank among the column's distinct values in the byte order of their text (Arrow
    compares strings as bytes; a whole number ranks as its decimal text: "10" before "9"), so that
    sorting by code sorts as trec_eval does, and equal values share one. Only the distinct values
    are turned to text."""
    encoded = pc.dictionary_encode(array)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    dictionary, indices = encoded.dictionary, encoded.indices.to_numpy(zero_copy_only=False)
    if not pa.types.is_string(dictionary.type):
        dictionary = pc.cast(dictionary, pa.string())
    order = pc.sort_indices(dictionary)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order.to_numpy()] = np.arange(len(order), dtype=np.int64)
    return Codes(rank[indices], dictionary.take(order))


def codes(array: pa.ChunkedArray | pa.Array) -> Ints:
    """coded's codes alone."""
    return coded(array).codes


def shared_codes(*columns: pa.ChunkedArray) -> list[Ints]:
    """codes of several columns in one code space (ids of both inputs: equal ids, equal codes;
    integers and strings compared as text, as trec_eval's are)."""
    text = len({column.type for column in columns}) > 1
    chunks = [chunk for column in columns for chunk in (pc.cast(column, pa.string()) if text else column).chunks]
    together = codes(pa.chunked_array(chunks, type=pa.string() if text else columns[0].type))
    split = np.cumsum([len(column) for column in columns])[:-1]
    return list(np.split(together, split))


def merged(*parts: Codes) -> list[Ints]:
    """shared_codes from each column's own codes: only the distinct values are ranked together."""
    union = shared_codes(*(pa.chunked_array([part.values]) for part in parts))
    return [within[part.codes] for within, part in zip(union, parts, strict=True)]
