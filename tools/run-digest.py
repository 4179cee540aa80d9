#!/usr/bin/env python3
"""Digest of what a workflow run computed, for checking that a change left results bit for bit alone.

    python3 tools/run-digest.py out/<run-id>

Reads the run folder the gateway's `run` command writes: every step's outputs from result.json
(job ids left out, since they are fresh per run, and a job's placement on the cluster; dataset ids are content hashes and stay) and
every data file the run kept. Prints one SHA-256 per step and file, then one over all of them.
Timings, hops and dates are not part of it, nor are the figures (PNG, SVG): their captions name
the run's jobs, and what they draw is in the step outputs and data files.
"""
import hashlib
import json
import pathlib
import sys


# Fresh per run (job ids), or where a job ran rather than what it computed (its placement on the
# cluster: silos, timings).
LEFT_OUT = {"jobId", "placement"}


def without_job_ids(value):
    if isinstance(value, dict):
        return {k: without_job_ids(v) for k, v in value.items() if k not in LEFT_OUT}
    if isinstance(value, list):
        return [without_job_ids(v) for v in value]
    return value


def main(folder: pathlib.Path) -> None:
    result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    lines = []
    for step in sorted(result["steps"], key=lambda s: s["id"]):
        outputs = json.dumps(without_job_ids(step["outputs"]), sort_keys=True, separators=(",", ":"))
        lines.append(f"{hashlib.sha256(outputs.encode()).hexdigest()}  step {step['id']} ({step['state']})")
    for artifact in sorted(a["name"] for a in result["artifacts"] if not a["name"].endswith((".png", ".svg"))):
        lines.append(f"{hashlib.sha256((folder / artifact).read_bytes()).hexdigest()}  file {artifact}")
    for line in lines:
        print(line)
    print(f"{hashlib.sha256(chr(10).join(lines).encode()).hexdigest()}  run {result['workflow']}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tools/run-digest.py <run folder>")
    main(pathlib.Path(sys.argv[1]))
