"""The plain-Python oracle of trec_eval's binary measures (tests/oracle.py) equals pytrec_eval on
generated data with every hard case, at relevance levels 1 and 2, with and without -J: the
reference the measures beside NDCG are checked against."""

from __future__ import annotations

import pytest

from tests import oracle
from tests.references import generated, pytrec_values

MEASURES = [
    *[(name, k) for name in ("P", "recall", "map_cut", "success") for k in (1, 3, 5, 20)],
    ("map", None),
    ("recip_rank", None),
    ("Rprec", None),
    ("bpref", None),
]


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", [3, 5, 11])
def test_oracle_equals_pytrec_eval(seed: int, level: int, judged_only: bool) -> None:
    results, judgments = generated(seed)
    want = pytrec_values(results, judgments, MEASURES, level=level, judged_only=judged_only)
    got = oracle.binary(results, judgments, MEASURES, level=level, judged_only=judged_only)
    assert set(got) == set(want) and got
    wrong = {key: (got[key], want[key]) for key in want if abs(got[key] - want[key]) > 1e-12}
    assert not wrong, wrong
