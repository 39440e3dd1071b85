"""Helpers of the embedded engine's Arrow columns, shared by its checks and its scoring."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc


def codes(array: pa.ChunkedArray | pa.Array) -> npt.NDArray[np.int64]:
    """Each value's rank among the column's distinct values (byte order for strings: Arrow
    compares them as bytes), so that sorting by code sorts by value, and equal values share one."""
    encoded = pc.dictionary_encode(array)
    if isinstance(encoded, pa.ChunkedArray):
        encoded = encoded.combine_chunks()
    dictionary, indices = encoded.dictionary, encoded.indices.to_numpy(zero_copy_only=False)
    order = pc.sort_indices(dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank[indices]
