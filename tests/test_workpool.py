"""engine/data/workpool.py: every unit's result arrives once, here or on Ray,
even when the worker running a unit dies."""
import os
from pathlib import Path

import pytest

from engine.data.workpool import run_units

from conftest import RAY_HANG_GUARD


def double(unit: int) -> int:
    return 2 * unit


def test_units_already_done_are_skipped_on_the_local_pool():
    seen = {}
    ran = run_units(double, [(k, k) for k in range(5)], {1, 3}, seen.__setitem__, workers=2)
    assert ran == 3 and seen == {0: 0, 2: 4, 4: 8}


@pytest.mark.timeout(RAY_HANG_GUARD)
def test_a_unit_whose_ray_worker_dies_is_run_again_and_counted_once(tmp_path):
    pytest.importorskip("ray")

    def die_the_first_time(unit):           # pickled by value: the workers need not import the tests
        marker, value = unit
        if not Path(marker).exists():
            Path(marker).write_text("died")
            os._exit(1)                     # the worker process is gone, mid-unit
        return 2 * value

    results = []
    units = [(k, (str(tmp_path / f"marker{k}"), k)) for k in range(3)]
    assert run_units(die_the_first_time, units, set(), lambda k, r: results.append((k, r)), cluster="local") == 3
    assert sorted(results) == [(0, 0), (1, 2), (2, 4)]
    assert all((tmp_path / f"marker{k}").read_text() == "died" for k in range(3))
