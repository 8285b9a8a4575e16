"""The recorded data of a study directory, the one input `gridbench report` needs:

    study.json    what was run: the study file's text, the plan's exclusions and notes, the
                  machine, the binaries, the ceilings, whether the study finished
    runs.jsonl    one JSON object per finished run, appended (and flushed) as each ends, so an
                  interrupted or killed study keeps every run it measured
    runs.csv      the same runs as CSV (written at the end and by `gridbench report`)
    runs.json     the same runs as one JSON array
    logs/         each server's transfer log and its own log, kept when it stops (a run's
                  server_log names the transfer log its figures came from)
"""

from __future__ import annotations

import csv
import json
import os

from .plan import VARIANT_FIELDS

# Columns of runs.csv, in order; runs.jsonl objects carry the same keys.
RUN_FIELDS = (
    ("index", "repetition", "status", "reason", "started")
    + VARIANT_FIELDS
    + ("files", "bytes", "log_bytes", "wall_seconds", "transfer_seconds", "throughput_bytes_per_second",
       "throughput_source", "wall_throughput_bytes_per_second",
       "server_cpu_seconds", "client_cpu_seconds", "server_utilisation", "client_utilisation",
       "cpu_seconds_per_gb", "cycles", "cycles_per_byte", "others_share",
       "mover_cpu_seconds", "mover_utilisation", "mover_throttled_share", "machine_busy_share",
       "tls_version", "cipher", "stream_tls", "security", "server_log", "command")
)

STUDY_JSON, RUNS_JSONL, RUNS_CSV, RUNS_JSON = "study.json", "runs.jsonl", "runs.csv", "runs.json"


class RecordError(Exception):
    """A study directory whose records cannot be read."""


def normalized(record: dict) -> dict:
    """A run with exactly the RUN_FIELDS keys (None where nothing was measured)."""
    return {k: record.get(k) for k in RUN_FIELDS}


def append_run(directory: str, record: dict) -> None:
    with open(os.path.join(directory, RUNS_JSONL), "a", encoding="utf-8") as f:
        f.write(json.dumps(normalized(record)) + "\n")
        f.flush()
        os.fsync(f.fileno())


def load_runs(directory: str) -> list[dict]:
    path = os.path.join(directory, RUNS_JSONL)
    if not os.path.exists(path):
        raise RecordError(f"{directory}: no {RUNS_JSONL} (not a gridbench study directory?)")
    runs = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            if not line.endswith("\n"):
                break   # the last line of a study killed while writing it
            try:
                runs.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise RecordError(f"{path}:{number}: not JSON: {e}") from None
    return runs


def write_tables(directory: str, runs: list[dict]) -> None:
    with open(os.path.join(directory, RUNS_CSV), "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=RUN_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for run in runs:
            writer.writerow({k: "" if run.get(k) is None else run.get(k) for k in RUN_FIELDS})
    with open(os.path.join(directory, RUNS_JSON), "w", encoding="utf-8") as f:
        json.dump(runs, f, indent=1)
        f.write("\n")


def save_study(directory: str, meta: dict) -> None:
    path = os.path.join(directory, STUDY_JSON)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)   # never a half-written study.json after a kill


def load_study_meta(directory: str) -> dict:
    path = os.path.join(directory, STUDY_JSON)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise RecordError(f"{path}: {e.strerror} (not a gridbench study directory?)") from None
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not JSON: {e}") from None
