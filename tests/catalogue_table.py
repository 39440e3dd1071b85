"""The catalogue as docs/semantics.md tabulates it, one row per declaration: what the docs test
holds that page's table against."""

from __future__ import annotations

from ndcg_spark.measures import catalogue
from ndcg_spark.measures.declaration import COEFFICIENTS, CUTOFFS, LEVELS, Declaration

START, END = "<!-- catalogue -->", "<!-- /catalogue -->"
_HEAD = "| trec_eval | ir_measures | parameters (default) | value for one query | 'all' | source |\n|---|---|---|---|---|---|"


def _params(declaration: Declaration) -> str:
    if declaration.params == CUTOFFS:
        return "cutoffs (" + ",".join(str(int(k)) for k in declaration.defaults) + ")"
    if declaration.params == LEVELS:
        return "levels (" + ",".join(f"{level:g}" for level in declaration.defaults) + ")"
    if declaration.params == COEFFICIENTS:
        return "numbers (" + ",".join(f"{value:g}" for value in declaration.defaults) + ")"
    return ""


def _ir(declaration: Declaration) -> str:
    names = [f"`{name}`" for name in declaration.ir_measures] + [f"`{name}@k`" for name in declaration.ir_measures_cut]
    return ", ".join(names)


def _row(declaration: Declaration) -> str:
    note = (
        " (text: `ndcg-spark trec_eval` prints it)"
        if declaration.text
        else ""
        if declaration.supported
        else " (not supported yet)"
    )
    name = f"`{declaration.name}`{note}"
    formula = declaration.formula.replace("|", "\\|")
    return (
        f"| {name} | {_ir(declaration)} | {_params(declaration)} | {formula} | {declaration.combine} | `{declaration.source}` |"
    )


def table() -> str:
    return "\n".join([START, _HEAD, *[_row(declaration) for declaration in catalogue.CATALOGUE], END])
