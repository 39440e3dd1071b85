"""Test helper, run as a script: the job, acted on at the named points of its publication
(ndcg_spark/publish/events.py), so that a test kills or holds it at an exact step, not at a time.

    python tests/at_point.py MARKS ACTION... -- JOB_ARGUMENTS...

Every point reached leaves a file in MARKS, `NN-point[-detail]` in the order reached (a detail
that is not a name, such as the lock holder a run waits for, is the file's text instead): what a
test waits for, and its evidence of where the run was. Each action acts at the first point that
matches its TARGET, `point` or `point=detail` (`*`: at every point):
    kill@TARGET         SIGKILL the whole process group (Python and the JVM), as a scheduler would;
    wait@TARGET@FILE    go on only once FILE exists (another run's mark, or the test's word);
    copy@TARGET         copy the --output folder to MARKS/NN-point[-detail].copy: on a local disk,
                        what a kill there would leave (every write before the point is complete,
                        nothing after it has started), once the process has ended;
    store@conditional   run on the simulated object store (tests/object_store.py), with conditional
    store@plain         writes or without; each file its renames copy or delete is a point of its
                        own, `stored`, its detail what was done (`copied part-...`)."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ndcg_spark.io.storage import simulated  # noqa: E402
from ndcg_spark.job.cli import main  # noqa: E402
from ndcg_spark.publish.events import Point, listening  # noqa: E402
from tests.object_store import ObjectStore, PlainObjectStore  # noqa: E402

STORED = "stored"  # the point of one file copied or deleted by the simulated store's rename

# A bound against a test that never gives its word: the run fails instead of hanging CI.
WAIT_LIMIT_SECONDS = 1800  # tests/conftest.py HANG_SECONDS
_GATE_POLL_SECONDS = 0.05


def _mark_name(index: int, point: str, detail: str = "") -> str:
    return f"{index:02d}-{point}" + (f"-{detail}" if detail.isidentifier() else "")


def _matches(target: str, point: str, detail: str) -> bool:
    name, _, wanted = target.partition("=")
    return target == "*" or (name == point and wanted in ("", detail))


def _wait_for(gate: Path) -> None:
    deadline = time.monotonic() + WAIT_LIMIT_SECONDS
    while not gate.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"at_point: {gate} never appeared")
        time.sleep(_GATE_POLL_SECONDS)


def run(marks: Path, actions: list[str], argv: list[str]) -> int:
    marks.mkdir(parents=True, exist_ok=True)
    stores = [action.split("@", 1)[1] for action in actions if action.startswith("store@")]
    pending = [action.split("@", 2) for action in actions if not action.startswith("store@")]
    output = Path(argv[argv.index("--output") + 1])
    count = 0

    def act(point: Point | str, detail: str) -> None:
        nonlocal count
        count += 1
        mark = marks / _mark_name(count, point, detail)
        mark.write_text(detail)
        for action in list(pending):
            if not _matches(action[1], point, detail):
                continue
            if action[1] != "*":
                pending.remove(action)
            if action[0] == "kill":
                os.killpg(os.getpgid(0), signal.SIGKILL)
            elif action[0] == "copy":
                shutil.copytree(output, mark.with_name(f"{mark.name}.copy"), symlinks=True)
            else:
                _wait_for(Path(action[2]))

    if not stores:
        with listening(act):
            return main(argv)
    store = ObjectStore if stores == ["conditional"] else PlainObjectStore
    store.step = staticmethod(lambda detail: act(STORED, detail))
    with listening(act), simulated(store):
        return main(argv)


if __name__ == "__main__":
    split = sys.argv.index("--")
    sys.exit(run(Path(sys.argv[1]), sys.argv[2:split], sys.argv[split + 1 :]))
