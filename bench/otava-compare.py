"""
Apache Otava's E-Divisive on the synthetic series of bench/change-points.ts, scored as that bench
scores ours (a step is found within ±2 or ±5 values; a false alarm is more than 5 from every step).

Otava is not a dependency and none of its code is here. Run with an Otava checkout on the path:

    BENCH_SCENARIOS=verdicts BENCH_CHANGE_POINTS_EXPORT=/tmp/series.json npm run bench
    PYTHONPATH=/path/to/otava python3 bench/otava-compare.py /tmp/series.json

Needs numpy and scipy (Debian: python3-numpy, python3-scipy).
"""

import json
import sys
import time
from collections import OrderedDict

from otava.analysis import compute_change_points


def detect(values, pvalue):
    points, _ = compute_change_points(values, window_len=50, max_pvalue=pvalue, min_magnitude=0.0)
    return [point.index for point in points]


def score(rows, pvalue):
    total = OrderedDict(series=0, steps=0, within_two=0, within_five=0, false_alarms=0, series_with_false_alarms=0)
    for row in rows:
        found = detect(row["values"], pvalue)
        distance = lambda index: min((abs(c - index) for c in found), default=10**9)
        false_alarms = sum(1 for c in found if all(abs(s - c) > 5 for s in row["steps"]))
        total["series"] += 1
        total["steps"] += len(row["steps"])
        total["within_two"] += sum(1 for s in row["steps"] if distance(s) <= 2)
        total["within_five"] += sum(1 for s in row["steps"] if distance(s) <= 5)
        total["false_alarms"] += false_alarms
        total["series_with_false_alarms"] += 1 if false_alarms else 0
    return total


def main(path):
    series = json.load(open(path))["series"]
    scenarios = OrderedDict()
    for row in series:
        scenarios.setdefault(row["scenario"], []).append(row)
    for pvalue in (0.01, 0.001):
        print(f"\nOtava compute_change_points(window_len=50, max_pvalue={pvalue}, min_magnitude=0)\n")
        print("| Series | within ±2 | within ±5 | false alarms |")
        print("|---|---:|---:|---:|")
        for name, rows in scenarios.items():
            t = score(rows, pvalue)
            print(f"| {name} | {t['within_two']}/{t['steps']} | {t['within_five']}/{t['steps']} | "
                  f"{t['false_alarms']} ({t['series_with_false_alarms']} of {t['series']} series) |")
    data = json.load(open(path))
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        found = detect(data["long"], 0.01)
        runs.append((time.perf_counter() - start) * 1000)
    print(f"\n10,000 values with 20 steps and 2 % outliers (seed 1): {len(found)} change points, "
          f"median of 3 runs {sorted(runs)[1]:.0f} ms")

if __name__ == "__main__":
    main(sys.argv[1])
