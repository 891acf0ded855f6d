"""PyIceberg's side of RestHotPathBenchmark (benchmarks/, io.treecat.benchmarks.iceberg): one client against one REST
catalog server, timing load_table and the table commit request. Run by the benchmark with the PyIceberg of its venv
(benchmarks/target/pyiceberg-venv); it prints one JSON line of samples, in nanoseconds.

usage: rest_hot_path.py <catalog uri> <table> <history table> <warm-up> <loads> <commits> <history loads>

- loads: catalog.load_table(<table>), the whole call (the GET, and PyIceberg's parse of the metadata);
- commits: table.append() of a one-row Arrow table to <table>; what is timed is the commit request alone, the
  POST .../namespaces/{ns}/tables/{table} (from the session's send to the response read), not the Parquet file,
  manifest and manifest list the client writes before it; a 409 is counted, and fails the run (one client
  does not race);
- history loads: catalog.load_table(<history table>), a table with thousands of snapshots.

Each kind first runs <warm-up> untimed times in this process (its client starts cold).
"""

import json
import re
import sys
import time

import pyarrow as pa
from pyiceberg.catalog import load_catalog

TABLE_COMMIT = re.compile(r"/namespaces/[^/]+/tables/[^/?]+$")


def main(uri, table_name, history_name, warmup, loads, commits, history_loads):
    catalog = load_catalog("bench", type="rest", uri=uri)
    session = catalog._session  # the requests.Session every call of this catalog goes through
    commit_nanos = []
    conflicts = [0]
    recording = [False]
    send = session.send

    def timed_send(request, **kwargs):
        if request.method != "POST" or not TABLE_COMMIT.search(request.path_url.split("?")[0]):
            return send(request, **kwargs)
        start = time.perf_counter_ns()
        response = send(request, **kwargs)
        response.content  # the body read, as the Java client's timing includes it
        took = time.perf_counter_ns() - start
        if response.status_code == 409:
            conflicts[0] += 1
        elif recording[0]:
            commit_nanos.append(took)
        return response

    session.send = timed_send

    def timed_loads(name, count, keep):
        samples = []
        for _ in range(count):
            start = time.perf_counter_ns()
            catalog.load_table(name)
            took = time.perf_counter_ns() - start
            if keep:
                samples.append(took)
        return samples

    timed_loads(table_name, warmup, False)
    load_nanos = timed_loads(table_name, loads, True)

    table = catalog.load_table(table_name)
    arrow_schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        pa.field("day", pa.string(), nullable=False),
    ])
    for i in range(warmup // 10 + commits):
        recording[0] = i >= warmup // 10
        row = pa.Table.from_pylist([{"id": i, "day": "2026-01-%02d" % (1 + i % 28)}], schema=arrow_schema)
        table.append(row)
    if conflicts[0]:
        raise AssertionError("%d commit requests answered 409 with one client" % conflicts[0])

    history_nanos = []
    if history_loads > 0:
        timed_loads(history_name, max(1, warmup // 10), False)
        history_nanos = timed_loads(history_name, history_loads, True)

    print(json.dumps({"loads": load_nanos, "commits": commit_nanos, "history_loads": history_nanos}))


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:8]))
