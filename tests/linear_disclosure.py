"""What an uncleared chat can work out from the figures it was shown, exactly.

The relations a reader knows (a total is the sum of its members; a flow's fiscal year is the
sum of its halves, quarters and months) are linear equations over every cell, stored or not;
each figure an answer showed fixes one cell (or a named sum of cells). A cell is determined by
what was shown exactly when its unit vector lies in the row space of those equations:
Gaussian elimination over exact rationals (fractions.Fraction), no tolerance anywhere.
Used by the disclosure property test and the end-to-end attack tests.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from fractions import Fraction

Row = dict[Hashable, Fraction]


class Knowledge:
    """The row space of the reader's equations, kept in reduced row echelon form."""

    def __init__(self) -> None:
        self._basis: dict[Hashable, Row] = {}  # pivot variable -> row with coefficient 1 there

    def add(self, coefficients: Mapping[Hashable, int | Fraction]) -> None:
        """One linear equation sum(c * x) = constant (the constant does not matter: only
        whether a cell is determined, not its value)."""
        row = self._reduce({k: Fraction(v) for k, v in coefficients.items() if v})
        if not row:
            return
        pivot = min(row, key=repr)
        scale = row[pivot]
        row = {k: v / scale for k, v in row.items()}
        for other_pivot, other in list(self._basis.items()):  # keep the basis fully reduced
            c = other.get(pivot)
            if c:
                self._basis[other_pivot] = _minus(other, row, c)
        self._basis[pivot] = row

    def add_sum(self, total: Hashable, parts: Iterable[Hashable]) -> None:
        """total = sum(parts)."""
        coefficients: dict[Hashable, int] = {total: 1}
        for p in parts:
            coefficients[p] = coefficients.get(p, 0) - 1
        self.add(coefficients)

    def shown(self, cell: Hashable) -> None:
        """The reader was shown this cell's figure."""
        self.add({cell: 1})

    def determined(self, cell: Hashable) -> bool:
        """Whether the shown figures and the relations fix this cell's value."""
        return not self._reduce({cell: Fraction(1)})

    def _reduce(self, row: Row) -> Row:
        for pivot in [k for k in row if k in self._basis]:
            c = row.get(pivot)
            if c:
                row = _minus(row, self._basis[pivot], c)
        return row


def _minus(row: Row, other: Row, c: Fraction) -> Row:
    out = dict(row)
    for k, v in other.items():
        value = out.get(k, Fraction(0)) - c * v
        if value:
            out[k] = value
        else:
            out.pop(k, None)
    return out
