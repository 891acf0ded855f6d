"""PyIceberg with vended credentials: no key of the store on the client, only the catalog's URI and warehouse.

Run by VendedCredentialsIT (catalog-server), which starts moto (S3 and STS, IAM checks on) and the server. PyIceberg
asks for vended-credentials by default and reads the table's storage-credentials (s3.access-key-id,
s3.secret-access-key, s3.session-token) and config (s3.endpoint, client.region) from the load and create responses.
Every check raises on a mismatch; the last line printed is "PYICEBERG VENDED OK".

usage: pyiceberg_vended.py <catalog uri> <warehouse>
"""

import os
import sys

import pyarrow as pa
from pyiceberg.catalog import load_catalog
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def main(uri, warehouse):
    # Nothing from the environment either: the keys can only come from the catalog.
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        os.environ.pop(name, None)
    catalog = load_catalog("treecat", type="rest", uri=uri, warehouse=warehouse)
    catalog.create_namespace("py")
    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "day", StringType(), required=True),
    )
    table = catalog.create_table("py.events", schema=schema)
    check(table.location() == "s3://lake/warehouse/py/events", f"location: {table.location()}")
    check("s3.secret-access-key" in table.io.properties, "the create response vended no credentials")
    arrow = pa.Table.from_pylist(
        [{"id": 1, "day": "mon"}, {"id": 2, "day": "tue"}],
        schema=pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("day", pa.string(), nullable=False)]),
    )
    table.append(arrow)
    table.append(pa.Table.from_pylist([{"id": 3, "day": "wed"}], schema=arrow.schema))

    loaded = catalog.load_table("py.events")
    rows = sorted(loaded.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    check([r["id"] for r in rows] == [1, 2, 3], f"rows: {rows}")
    check(len(loaded.metadata.snapshots) == 2, f"snapshots: {len(loaded.metadata.snapshots)}")
    check(
        loaded.io.properties.get("s3.access-key-id") == table.io.properties.get("s3.access-key-id"),
        "a load within the cache window hands out the same credentials",
    )
    print("PYICEBERG VENDED OK")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
