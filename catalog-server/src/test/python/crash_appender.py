"""PyIceberg appends to a TreeCat server that is killed under them (CrashDurabilityIT, catalog-server).

usage: crash_appender.py setup <catalog uri>
       crash_appender.py append <catalog uri> <writer> <first seq> <ack file> <seconds>
       crash_appender.py verify <catalog uri>

setup creates the namespace and table once. append appends batches of ROWS rows, each batch one
snapshot, until the server goes away or <seconds> pass. Before each batch it writes "attempt <seq>"
to the ack file, and "ack <seq> <snapshot id>" once the server has acknowledged the commit. A commit
the server refused with 409 (CommitFailedException: not committed) is made again on the refreshed
table; any other failure leaves the batch's outcome unknown, and the writer stops. verify prints, as
JSON, how many rows each (writer, seq) batch has in the table, the number of duplicate ids, and the
table's snapshot ids.
"""

import json
import sys
import time

import pyarrow as pa
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import CommitFailedException, NamespaceAlreadyExistsError, TableAlreadyExistsError
from pyiceberg.schema import Schema
from pyiceberg.types import IntegerType, LongType, NestedField

NAMESPACE = "crash"
TABLE = "crash.appends"
ROWS = 5

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "writer", IntegerType(), required=True),
    NestedField(3, "seq", LongType(), required=True),
)
ARROW = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    pa.field("writer", pa.int32(), nullable=False),
    pa.field("seq", pa.int64(), nullable=False),
])


def catalog(uri):
    return load_catalog("treecat", type="rest", uri=uri)


def setup(uri):
    cat = catalog(uri)
    try:
        cat.create_namespace(NAMESPACE)
    except NamespaceAlreadyExistsError as e:
        # A 409; if the namespace is then missing, the create_table below says so, and this tells why.
        print("create_namespace: %r" % e)
    try:
        cat.create_table(TABLE, schema=SCHEMA)
    except TableAlreadyExistsError:
        pass
    print("SETUP OK")


def commit(table, batch):
    """Appends the batch; a 409 is a commit that did not happen, so it is made again on the table as it is now."""
    while True:
        try:
            table.append(batch)
            return table.current_snapshot().snapshot_id
        except CommitFailedException:
            table.refresh()


def append(uri, writer, first_seq, ack_path, seconds):
    deadline = time.time() + seconds
    with open(ack_path, "a", encoding="utf-8") as acks:
        try:
            table = catalog(uri).load_table(TABLE)
        except Exception as e:  # the server went away before the first batch
            print("stopped before the first batch: %r" % e)
            return
        seq = first_seq
        while time.time() < deadline:
            rows = [{"id": writer * 1_000_000_000 + seq * 100 + i, "writer": writer, "seq": seq} for i in range(ROWS)]
            batch = pa.Table.from_pylist(rows, schema=ARROW)
            acks.write("attempt %d\n" % seq)
            acks.flush()
            try:
                snapshot = commit(table, batch)
            except Exception as e:  # the server is gone (or failed): this batch's outcome is unknown
                print("stopped at seq %d: %r" % (seq, e))
                return
            acks.write("ack %d %d\n" % (seq, snapshot))
            acks.flush()
            seq += 1
    print("deadline reached")


def verify(uri):
    table = catalog(uri).load_table(TABLE)
    rows = table.scan().to_arrow().to_pylist()
    batches = {}
    for row in rows:
        key = "%d:%d" % (row["writer"], row["seq"])
        batches[key] = batches.get(key, 0) + 1
    ids = [row["id"] for row in rows]
    print(json.dumps({
        "rows": len(rows),
        "duplicateIds": len(ids) - len(set(ids)),
        "batches": batches,
        "snapshots": [snapshot.snapshot_id for snapshot in table.snapshots()],
    }))


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "setup":
        setup(sys.argv[2])
    elif command == "append":
        append(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], float(sys.argv[6]))
    elif command == "verify":
        verify(sys.argv[2])
    else:
        raise SystemExit(__doc__)
