#!/usr/bin/env python3
"""Summarises bench/ab.sh runs: per experiment, case and metric, the median over rounds of the base
build and of the working tree, and head ÷ base. Usage: ab-summary.py <work> <base> <rounds> <options> <experiment>..."""
import json
import os
import platform
import statistics
import subprocess
import sys

work, base, rounds, options, experiments = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} logical cores; {platform.system()} {platform.release()}"


def load(side, experiment):
    runs = []
    for r in range(1, rounds + 1):
        path = os.path.join(work, f"{side}-{r}", f"{experiment}.json")
        if os.path.exists(path):
            with open(path) as f:
                runs.append({(row["case"], row["metric"]): (row["value"], row.get("unit", "")) for row in json.load(f)})
    return runs


head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
print(f"# Before and after: {', '.join(experiments)}\n")
print(f"Base `{base}` against the working tree on `{head}`, built in Release, run alternately (base, head, …) "
      f"{rounds} rounds in one session{f' with `{options}`' if options else ''}. Machine: {machine()}.\n")
print(f"Command: `bench/ab.sh {base} {rounds} {' '.join(experiments)}{' -- ' + options if options else ''}`. "
      "Medians over the rounds; head ÷ base below 1 is faster (for times) — the machine is noisy, so read "
      "differences under about 10 % as equal.\n")
for experiment in experiments:
    before, after = load("base", experiment), load("head", experiment)
    print(f"## {experiment}\n")
    if not before or not after:
        print("No results (see the run logs).\n")
        continue
    print("| case | metric | base | head | head ÷ base |\n|---|---|---|---|---|")
    for key in before[0]:
        b = [run[key][0] for run in before if key in run]
        a = [run[key][0] for run in after if key in run]
        if not b or not a:
            continue
        mb, ma = statistics.median(b), statistics.median(a)
        unit = before[0][key][1]
        ratio = f"{ma / mb:.3f}" if mb > 0 and ma > 0 else "–"
        print(f"| {key[0]} | {key[1]} ({unit}) | {mb:.4g} | {ma:.4g} | {ratio} |")
    print()
    # Every round of each case's first metric: the machine swings between states for whole runs, and
    # the medians above hide which rounds of which side it hit.
    firsts = []
    for case, metric in before[0]:
        if all(c != case for c, _ in firsts):
            firsts.append((case, metric))
    print(f"### Every round ({', '.join(sorted({m for _, m in firsts}))})\n")
    print("| case | " + " | ".join(f"base {r}" for r in range(1, len(before) + 1)) + " | "
          + " | ".join(f"head {r}" for r in range(1, len(after) + 1)) + " |")
    print("|---|" + "---|" * (len(before) + len(after)))
    for key in firsts:
        cells = [f"{run[key][0]:.4g}" if key in run else "–" for run in before + after]
        print(f"| {key[0]} | " + " | ".join(cells) + " |")
    print()
