"""bench-builds (engine/tools/bench_builds.py): two builds' bench in worker
processes taking turns, and callgrind's count of the search alone. The
working tree stands in for both builds: what is tested is that each worker
searches the bench as `bench` does, not which build is faster."""
import shutil
from pathlib import Path

import pytest

from engine.bench import run_bench
from engine.session import bench_searcher
from engine.tools.bench_builds import callgrind_total, compare, search_instructions

REPO = Path(__file__).resolve().parent.parent


def bench_nodes(depth: int) -> int:
    with bench_searcher({}, lambda line: None) as searcher:
        return run_bench(searcher, depth)[0]


def test_each_build_searches_the_bench_in_a_worker_of_its_own():
    results = compare({"base": REPO, "candidate": REPO}, depth=3, runs=2)
    assert results["base"].nodes == results["candidate"].nodes == bench_nodes(3)
    assert all(len(r.nps) == 2 and min(r.nps) > 0 for r in results.values())


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_callgrind_counts_only_the_search():
    instructions, nodes = search_instructions(REPO, 2)
    assert nodes == bench_nodes(2)
    # Hundreds of instructions a node, not the millions that Python's start or
    # the tables cleared between positions would add if they were counted.
    assert 100 * nodes < instructions < 100_000 * nodes


def test_the_total_of_a_callgrind_file():
    assert callgrind_total("version: 1\nevents: Ir\nsummary: 3907306492\n") == 3907306492
    assert callgrind_total("events: Ir\nfn=main\n0 5\ntotals: 5\n") == 5
    assert callgrind_total("events: Ir\n") == 0
