"""The disclosure property (issue 33): whatever the hierarchy, the periods stored, the missing
cells and the restricted units, no restricted figure (a year, a half, a quarter or a month;
stored or not) can be worked out from everything an uncleared chat can be shown, by sums over
periods and members and differences of them, solved exactly (tests.linear_disclosure).

Bounded here; `python bench/bench_disclosure_property.py --examples 5000` runs it longer.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from tests.disclosure_model import World, disclosed, worlds


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds())
def test_no_restricted_cell_is_determined_by_what_an_uncleared_chat_sees(world: World) -> None:
    assert disclosed(world) == []
