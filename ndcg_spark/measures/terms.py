"""The algebra a measure's formula is written in, so that one formula runs on both engines.

A formula reads its ingredients (measures.declaration.Ingredients) and combines them with Python's
operators and the functions below. On the Spark engine an ingredient is `Sql`, and the formula
builds SQL text, every operation parenthesized in the order Python evaluates it; on the embedded
engine an ingredient is a numpy array over the (run, query) rows, and the same formula computes
the values. Each function does on arrays exactly what its SQL does in Spark, so that both give the
same bits: IEEE operations in the same order, Spark's log2 (StrictMath's), and its rounding."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
else:

    class _Numpy:
        """numpy, imported on first use: it loads with the embedded engine, and a Spark run, whose
        terms are SQL text, need not import it (docs/operations.md)."""

        def __getattr__(self, name: str) -> Any:
            return getattr(importlib.import_module("numpy"), name)

    np = _Numpy()


class Sql:
    """SQL text of a DOUBLE, BIGINT or BOOLEAN term (a Spark SQL expression)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Sql({self.text!r})"

    def _binary(self, operator: str, other: object, reflected: bool = False) -> Sql:
        left, right = (literal(other), self.text) if reflected else (self.text, literal(other))
        return Sql(f"({left} {operator} {right})")

    def __add__(self, other: object) -> Sql:
        return self._binary("+", other)

    def __radd__(self, other: object) -> Sql:
        return self._binary("+", other, True)

    def __sub__(self, other: object) -> Sql:
        return self._binary("-", other)

    def __rsub__(self, other: object) -> Sql:
        return self._binary("-", other, True)

    def __mul__(self, other: object) -> Sql:
        return self._binary("*", other)

    def __rmul__(self, other: object) -> Sql:
        return self._binary("*", other, True)

    def __truediv__(self, other: object) -> Sql:
        return self._binary("/", other)

    def __rtruediv__(self, other: object) -> Sql:
        return self._binary("/", other, True)

    def __gt__(self, other: object) -> Sql:
        return self._binary(">", other)

    def __ge__(self, other: object) -> Sql:
        return self._binary(">=", other)

    def __lt__(self, other: object) -> Sql:
        return self._binary("<", other)

    def __le__(self, other: object) -> Sql:
        return self._binary("<=", other)

    def __and__(self, other: object) -> Sql:
        return self._binary("AND", other)

    def __rand__(self, other: object) -> Sql:
        return self._binary("AND", other, True)

    def __or__(self, other: object) -> Sql:
        return self._binary("OR", other)

    def __invert__(self) -> Sql:
        return Sql(f"(NOT {self.text})")

    __hash__ = None  # type: ignore[assignment]  # == is not SQL's here: nothing compares terms


Array: TypeAlias = "npt.NDArray[Any]"
Term: TypeAlias = "Sql | Array | float | int"


def literal(value: object) -> str:
    """SQL text of a term or a Python number: a float as a DOUBLE literal (its exact digits)."""
    if isinstance(value, Sql):
        return value.text
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return f"{value!r}D"
    if isinstance(value, int):
        return str(value)  # INT where it fits (element_at's index must be), else BIGINT
    raise TypeError(f"not a term: {value!r}")


def _sql(*terms: object) -> bool:
    return any(isinstance(term, Sql) for term in terms)


def _array(value: Term) -> Array:
    """An embedded term as an array (a Python number as a 0-d one)."""
    assert not isinstance(value, Sql)
    return np.asarray(value)


def _doubles(value: Term) -> npt.NDArray[np.float64]:
    return _array(value).astype(np.float64, copy=False)


def as_double(value: Term) -> Term:
    """The term as a DOUBLE (a count is exact below 2^53 either way)."""
    if isinstance(value, Sql):
        return Sql(f"CAST({value.text} AS DOUBLE)")
    return _doubles(value)


def where(condition: Term, then: Term, otherwise: Term) -> Term:
    """CASE WHEN condition THEN then ELSE otherwise END (a NULL condition takes otherwise; the
    embedded ingredients hold no NULL where a formula compares)."""
    if _sql(condition, then, otherwise):
        return Sql(f"CASE WHEN {literal(condition)} THEN {literal(then)} ELSE {literal(otherwise)} END")
    return np.where(_array(condition).astype(bool, copy=False), _array(then), _array(otherwise))


def ratio(numerator: Term, denominator: Term) -> Term:
    """numerator / denominator as a DOUBLE, 0 where the denominator is 0."""
    return where(denominator > 0, as_double(numerator) / as_double(denominator), 0.0)


def least(left: Term, right: Term) -> Term:
    if _sql(left, right):
        return Sql(f"least({literal(left)}, {literal(right)})")
    return np.minimum(_array(left), _array(right))


def greatest(left: Term, right: Term) -> Term:
    if _sql(left, right):
        return Sql(f"greatest({literal(left)}, {literal(right)})")
    return np.maximum(_array(left), _array(right))


def coalesce(value: Term, default: Term) -> Term:
    """The value, or the default where it is NULL (NaN in an embedded array of doubles)."""
    if _sql(value, default):
        return Sql(f"coalesce({literal(value)}, {literal(default)})")
    values = _array(value)
    if values.dtype.kind != "f":
        return values
    return np.where(np.isnan(values), _array(default), values)


def floor(value: Term) -> Term:
    """Spark's floor of a DOUBLE (a BIGINT there; the same whole number)."""
    if isinstance(value, Sql):
        return Sql(f"floor({value.text})")
    return np.floor(_doubles(value))


def round_half_up(value: Term) -> Term:
    """Spark's round(x, 0) of a DOUBLE: half away from zero (HALF_UP), not numpy's half to even.
    x - floor(x) is exact for a double, so the comparison with 0.5 is too."""
    if isinstance(value, Sql):
        return Sql(f"round({value.text}, 0)")
    return half_up(_doubles(value))


def half_up(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """round_half_up of an array."""
    size = np.abs(x)
    whole = np.floor(size)
    return np.copysign(np.where(size - whole >= 0.5, whole + 1.0, whole), x)


def power_of_two(value: Term) -> Term:
    """Spark's pow(2.0, x) of a whole number x: exact, as StrictMath's is where 2^x is a double."""
    if isinstance(value, Sql):
        return Sql(f"pow(2.0D, {value.text})")
    return np.ldexp(1.0, _array(value).astype(np.int64))


def log2(value: Term) -> Term:
    """Spark's log2: StrictMath.log(x) / StrictMath.log(2)."""
    if isinstance(value, Sql):
        return Sql(f"log2({value.text})")
    from ndcg_spark.measures.strict_math import log2 as strict_log2

    return strict_log2(_doubles(value))


def equal(left: Term, right: Term) -> Sql | Array:
    """left = right (Python's == stays identity on terms)."""
    if _sql(left, right):
        return Sql(f"({literal(left)} = {literal(right)})")
    return np.asarray(_array(left) == _array(right))


def differ(left: Term, right: Term) -> Sql | Array:
    if _sql(left, right):
        return Sql(f"({literal(left)} <> {literal(right)})")
    return np.asarray(_array(left) != _array(right))


class SqlRow:
    """One element of a list in a lambda of Spark SQL (`name` its variable, or an element_at)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __getattr__(self, field: str) -> Sql:
        if field.startswith("_"):
            raise AttributeError(field)
        return Sql(f"{self.text}.{field}")

    def of_pair(self, term: Term) -> Term:
        """A term of the (run, query) row, seen from an element of its list: itself in SQL."""
        return term


class SqlList:
    """A list column of structs (an ARRAY in Spark SQL), walked in its order; `name` is the lambda
    variable of its elements."""

    def __init__(self, text: str, name: str) -> None:
        self.text = text
        self.name = name

    def size(self) -> Sql:
        return Sql(f"size({self.text})")

    def sum(self, term: Callable[[SqlRow], Term]) -> Sql:
        """The sum of term over the elements, sequentially in order (aggregate from 0.0)."""
        return Sql(f"aggregate({self.text}, 0.0D, (acc, {self.name}) -> acc + {literal(term(SqlRow(self.name)))})")

    def filter(self, keep: Callable[[SqlRow], Term]) -> SqlList:
        return SqlList(f"filter({self.text}, {self.name} -> {literal(keep(SqlRow(self.name)))})", self.name)

    def at(self, position: Term, row: object = None) -> SqlRow:
        """The element at position (from 1); `row`, the element of another list it is read from
        (the embedded engine needs its pair)."""
        return SqlRow(f"element_at({self.text}, {literal(position)})")

    def fold(self, start: tuple[float, ...], step: Callable[[tuple[Sql, ...], SqlRow], tuple[Term, ...]]) -> tuple[Sql, ...]:
        """A state of a few numbers carried through the elements in order (Spark's aggregate over
        a struct): its final value, field by field."""
        names = [f"s{index}" for index in range(len(start))]
        initial = ", ".join(f"'{name}', {literal(value)}" for name, value in zip(names, start, strict=True))
        state = tuple(Sql(f"acc.{name}") for name in names)
        updated = ", ".join(
            f"'{name}', {literal(term)}" for name, term in zip(names, step(state, SqlRow(self.name)), strict=True)
        )
        merge = f"(acc, {self.name}) -> named_struct({updated})"
        return tuple(Sql(f"aggregate({self.text}, named_struct({initial}), {merge}, acc -> acc.{name})") for name in names)
