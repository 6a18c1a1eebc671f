"""Upload benchmark: peak memory (RSS), time and database size of uploading a generated JSONL file.

The file (``$GISKARD_NB_BENCH_UPLOAD_MB`` MB, default 20; the issue's figure is for ~200) is written to a
temporary folder, never kept. Each upload runs in a fresh subprocess so that its peak RSS is its own.
Prints numbers only. ``python benchmarks/bench_upload.py 200`` runs another size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_MB = float(os.environ.get("GISKARD_NB_BENCH_UPLOAD_MB", "20"))
CHILD = """
import sys
from giskard_nb.hub import Hub
hub = Hub(sys.argv[2])
project = hub.projects.create("bench")
dataset = hub.datasets.upload(project.id, sys.argv[1], name="big")
print(len(hub.audit.search(limit=None)))
hub.close()
# VmHWM: this process's peak resident memory (ru_maxrss would include the forking parent's)
print(next(l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")))
"""


def write_jsonl(path: Path, megabytes: float) -> int:
    filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 6
    target, count = megabytes * 1_000_000, 0
    with path.open("w", encoding="utf-8") as handle:
        while handle.tell() < target:
            item = {
                "messages": [
                    {"role": "user", "content": f"Question {count}: {filler}"},
                    {"role": "assistant", "content": f"Answer {count}: {filler}"},
                    {"role": "user", "content": f"Follow-up {count}?"},
                ],
                "checks": [{"identifier": "string_match", "params": {"keyword": "refund"}}],
                "metadata": {"source": "bench", "n": count},
            }
            handle.write(json.dumps(item) + "\n")
            count += 1
    return count


def bench(megabytes: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path, db = Path(tmp) / "big.jsonl", Path(tmp) / "hub.db"
        n = write_jsonl(path, megabytes)
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(path), str(db)],
            check=True,
            capture_output=True,
            text=True,
        )
        wall = time.perf_counter() - t0
        entries, peak_kib = out.stdout.split()
        size = sum(p.stat().st_size for p in Path(tmp).glob("hub.db*"))
        print(
            f"upload of a {path.stat().st_size / 1e6:.0f} MB JSONL ({n} test cases): {wall:.1f} s, "
            f"peak RSS {int(peak_kib) / 1024:.0f} MB, database {size / 1e6:.0f} MB, "
            f"{entries} audit entries"
        )


def main() -> None:
    bench(float(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_MB)


if __name__ == "__main__":
    main()
