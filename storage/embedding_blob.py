"""How an embedding is stored: little-endian float32 bytes, alike on SQLite and PostgreSQL.

numpy is imported only when a vector is packed or unpacked, so an exact-hash lookup that never
touches a vector never loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

DTYPE = "<f4"
_ITEM_BYTES = 4


def pack(vector: np.ndarray) -> bytes:
    import numpy as np

    return np.asarray(vector, DTYPE).tobytes()


def unpack(blob: bytes) -> np.ndarray:
    """A writable vector of its own (not a view on the row's bytes)."""
    import numpy as np

    return np.frombuffer(blob, dtype=DTYPE).copy()


def unpack_matrix(blobs: Sequence[bytes], dimension: int) -> np.ndarray:
    """Many stored vectors of one dimension as one matrix, a row each."""
    import numpy as np

    return np.frombuffer(b"".join(blobs), dtype=DTYPE).reshape(len(blobs), dimension)


def dimension_of(blob: bytes) -> int:
    return len(blob) // _ITEM_BYTES
