"""Helpers of the embedded engine's Arrow columns, shared by its checks and its scoring."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc


def codes(array: pa.ChunkedArray | pa.Array) -> npt.NDArray[np.int64]:
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
    order = pc.sort_indices(dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank[indices]


def shared_codes(*columns: pa.ChunkedArray) -> list[npt.NDArray[np.int64]]:
    """codes of several columns in one code space (ids of both inputs: equal ids, equal codes;
    integers and strings compared as text, as trec_eval's are)."""
    text = len({column.type for column in columns}) > 1
    chunks = [chunk for column in columns for chunk in (pc.cast(column, pa.string()) if text else column).chunks]
    together = codes(pa.chunked_array(chunks, type=pa.string() if text else columns[0].type))
    split = np.cumsum([len(column) for column in columns])[:-1]
    return list(np.split(together, split))
