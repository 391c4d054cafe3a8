"""The chart's scales hold every point and band."""

import pytest

from results.charts import nice_ticks


@pytest.mark.parametrize(
    ("low", "high"), [(10, 75), (0.24, 0.95), (-3, 3), (91.9, 91.9), (0, 1e-3), (12, 60)]
)
def test_the_ticks_span_the_values(low, high):
    ticks = nice_ticks(low, high)
    assert ticks[0] <= low and ticks[-1] >= high
    assert 2 <= len(ticks) <= 12
