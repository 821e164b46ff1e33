"""Units of work on this machine's cores or on a Ray cluster, the same way.

``run_units(fn, units, done, ...)`` calls ``fn(unit)`` for every unit whose
key is not in ``done`` yet and hands each result to ``on_result(key, result)``
as it arrives, so a caller that saves results there never loses a finished
unit and never counts one twice: a rerun after a crash skips what was saved.

- no ``cluster``: a local process pool of ``workers`` processes;
- ``cluster="local"``: a Ray instance started here (what the tests use);
- ``cluster="ray://host:10001"`` or ``"host:6379"``: an existing Ray
  cluster; the ``engine`` package travels with the job (py_modules), so the
  workers need Python, numpy and python-chess, and a CPU the compiled core
  runs on. A unit whose worker dies is run again elsewhere (Ray's
  ``max_retries``); its result still arrives once.

``fn`` must be a module-level function (it is pickled by name).
"""
from __future__ import annotations

import atexit
import json
from collections.abc import Callable, Hashable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

RETRIES = 3


def save_json(path: Path, value, indent: int | None = None) -> None:
    """Write ``value`` as JSON to ``path`` atomically (a temporary file renamed
    over it): a kill never leaves half a file of finished units."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value, indent=indent))
    tmp.replace(path)


def run_units(fn: Callable, units: Iterable[tuple[Hashable, object]], done: set,
              on_result: Callable[[Hashable, object], None], workers: int = 2,
              cluster: str | None = None) -> int:
    """Run ``fn(unit)`` for each (key, unit) whose key is not in ``done``;
    return how many ran."""
    todo = [(key, unit) for key, unit in units if key not in done]
    if not todo:
        return 0
    if cluster:
        return _on_ray(fn, todo, on_result, cluster)
    with ProcessPoolExecutor(max(1, workers)) as pool:
        futures = {pool.submit(fn, unit): key for key, unit in todo}
        for future in as_completed(futures):
            on_result(futures[future], future.result())
    return len(todo)


def _on_ray(fn: Callable, todo: list, on_result: Callable, cluster: str) -> int:
    import ray
    if not ray.is_initialized():
        # connected once per process and left open: a tuning run calls this every step
        if cluster == "local":
            ray.init(include_dashboard=False, log_to_driver=False)
        else:
            package = Path(__file__).resolve().parent.parent
            ray.init(address=cluster, runtime_env={"py_modules": [str(package)]}, log_to_driver=False)
        atexit.register(ray.shutdown)
    # retry_exceptions: a unit that failed (an engine that did not start on a
    # busy worker) is run again like one whose worker died, never saved short.
    remote = ray.remote(max_retries=RETRIES, retry_exceptions=True)(fn)
    pending = {remote.remote(unit): key for key, unit in todo}
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            on_result(pending.pop(ref), ray.get(ref))
    return len(todo)
