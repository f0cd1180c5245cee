"""Host CPU use while the ranks run, so a run says whether links or cores
set its time (DESIGN.md §14: keep the host under ~70%).

A background thread reads ``/proc/stat`` every `period_s` seconds; the
report gives the mean over the run and the busiest interval.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import List, Optional, Tuple

#: Above this mean share of the host's cores, the cores (not the links) may set the time.
BUSY_LIMIT = 0.70


def _times() -> Optional[Tuple[int, int]]:
    """(busy, total) jiffies over all cores, or None where /proc/stat is missing."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return sum(fields) - idle, sum(fields)


@dataclass
class CpuReport:
    mean: float
    peak: float
    cores: int

    def line(self) -> str:
        verdict = (
            "the links set the time"
            if self.mean <= BUSY_LIMIT
            else f"over {BUSY_LIMIT:.0%}: the cores may set the time, not the links (fewer ranks or slower links)"
        )
        return f"host CPU: mean {self.mean:.0%}, busiest {self.peak:.0%} of {self.cores} cores: {verdict}"


class CpuSampler:
    def __init__(self, period_s: float = 0.5) -> None:
        self.period_s = period_s
        self._stop = threading.Event()
        self._samples: List[float] = []
        self._first = _times()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> "CpuSampler":
        self._thread.start()
        return self

    def _run(self) -> None:
        last = self._first
        while not self._stop.wait(self.period_s):
            now = _times()
            if now and last and now[1] > last[1]:
                self._samples.append((now[0] - last[0]) / (now[1] - last[1]))
            last = now

    def stop(self) -> Optional[CpuReport]:
        self._stop.set()
        self._thread.join()
        end = _times()
        if not (end and self._first and end[1] > self._first[1]):
            return None
        mean = (end[0] - self._first[0]) / (end[1] - self._first[1])
        return CpuReport(mean=mean, peak=max(self._samples, default=mean), cores=os.cpu_count() or 1)
