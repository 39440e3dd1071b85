"""What one resampling draw is, shared by both engines (resampling.py's rows, draw_arrays.py's
arrays), so that they draw the same numbers: the tags that make the two tests' hashes
independent, the bits of a hash read as a uniform number, and the Poisson(1) table that turns it
into a bootstrap count."""

from __future__ import annotations

import math

# Poisson(1) cumulative probabilities: a uniform draw below the j-th is a count of j.
POISSON_CDF = tuple(sum(math.exp(-1.0) / math.factorial(i) for i in range(j + 1)) for j in range(18))
UNIFORM_BITS = 53
# The first argument of each test's hash: the two tests draw independently.
RANDOMIZATION_TAG, BOOTSTRAP_TAG = "randomization", "bootstrap"
# The (run, draw) row of each engine's output that holds the observed sums (every sign +1, no
# bootstrap weight): the test's reference comes out of the draws' own aggregation.
OBSERVED_DRAW = -1
