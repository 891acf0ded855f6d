"""PyIceberg against a running TreeCat server, as a user would point it: the REST catalog URI only.

Run by PyIcebergIT (catalog-server), which starts the server and installs the pinned PyIceberg in a
virtual environment. Every check raises on a mismatch; the last line printed is "PYICEBERG OK".

usage: pyiceberg_e2e.py <catalog uri>
"""

import sys

import pyarrow as pa
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import (
    NamespaceAlreadyExistsError,
    NoSuchTableError,
    RESTError,
    TableAlreadyExistsError,
)
from pyiceberg.expressions import EqualTo, GreaterThanOrEqual
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import LongType, NestedField, StringType


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def rows(table, row_filter=None, snapshot_id=None):
    scan = table.scan(row_filter=row_filter, snapshot_id=snapshot_id) if row_filter is not None \
        else table.scan(snapshot_id=snapshot_id)
    return sorted(scan.to_arrow().to_pylist(), key=lambda r: r["id"])


def main(uri):
    catalog = load_catalog("treecat", type="rest", uri=uri)

    # TreeCat keeps namespaces as a tree: a nested one needs its parent.
    try:
        catalog.create_namespace(("py", "sales"))
        raise AssertionError("a namespace without its parent was created")
    except RESTError as e:  # PyIceberg maps only 409 here; the server's 404 names the missing parent
        check("NoSuchNamespaceException" in str(e) and "py" in str(e), "unexpected error: %s" % e)
    catalog.create_namespace(("py",))
    catalog.create_namespace(("py", "sales"), {"owner": "pyiceberg"})
    check(("py", "sales") in catalog.list_namespaces(("py",)), "nested namespace not listed")
    check(catalog.load_namespace_properties(("py", "sales"))["owner"] == "pyiceberg", "namespace property lost")
    try:
        catalog.create_namespace(("py", "sales"))
        raise AssertionError("a second create of the namespace succeeded")
    except NamespaceAlreadyExistsError:
        pass

    schema = Schema(
        NestedField(1, "id", LongType(), required=True),
        NestedField(2, "day", StringType(), required=True),
        NestedField(3, "amount", LongType(), required=False),
    )
    spec = PartitionSpec(PartitionField(source_id=2, field_id=1000, transform=IdentityTransform(), name="day"))
    table = catalog.create_table("py.sales.orders", schema=schema, partition_spec=spec)
    try:
        catalog.create_table("py.sales.orders", schema=schema)
        raise AssertionError("a second create of the table succeeded")
    except TableAlreadyExistsError:
        pass
    check(catalog.list_tables(("py", "sales")) == [("py", "sales", "orders")], "table not listed")

    arrow_schema = pa.schema([
        pa.field("id", pa.int64(), nullable=False),
        pa.field("day", pa.string(), nullable=False),
        pa.field("amount", pa.int64(), nullable=True),
    ])
    first = pa.Table.from_pylist([
        {"id": 1, "day": "2025-01-01", "amount": 10},
        {"id": 2, "day": "2025-01-01", "amount": 20},
        {"id": 3, "day": "2025-01-02", "amount": 30},
    ], schema=arrow_schema)
    table.append(first)
    after_first = table.current_snapshot().snapshot_id

    # A second client appends to the same table: both appends must be in it.
    other = load_catalog("treecat2", type="rest", uri=uri).load_table("py.sales.orders")
    other.append(pa.Table.from_pylist([{"id": 4, "day": "2025-01-03", "amount": 40}], schema=arrow_schema))
    table = catalog.load_table("py.sales.orders")
    check([r["id"] for r in rows(table)] == [1, 2, 3, 4], "appends from two clients: %s" % rows(table))

    # Filters, pushed down to partitions and files by PyIceberg's own planning over the manifests.
    check([r["id"] for r in rows(table, EqualTo("day", "2025-01-01"))] == [1, 2], "day filter")
    check([r["id"] for r in rows(table, GreaterThanOrEqual("amount", 30))] == [3, 4], "amount filter")

    # Row-level delete (a copy-on-write overwrite of the partition), schema evolution, time travel.
    table.delete(EqualTo("id", 2))
    table = catalog.load_table("py.sales.orders")
    check([r["id"] for r in rows(table)] == [1, 3, 4], "delete of id 2: %s" % rows(table))
    with table.update_schema() as update:
        update.add_column("note", StringType())
    table = catalog.load_table("py.sales.orders")
    check(table.schema().find_field("note") is not None, "added column missing")
    check([r["id"] for r in rows(table, snapshot_id=after_first)] == [1, 2, 3], "time travel to the first append")
    check(len(table.history()) >= 3, "history: %s" % table.history())

    # Properties, rename, drop.
    with table.transaction() as transaction:
        transaction.set_properties({"written-by": "pyiceberg"})
    check(catalog.load_table("py.sales.orders").properties.get("written-by") == "pyiceberg", "property not committed")
    catalog.rename_table("py.sales.orders", "py.sales.orders_renamed")
    check(not catalog.table_exists("py.sales.orders"), "old name still exists")
    check([r["id"] for r in rows(catalog.load_table("py.sales.orders_renamed"))] == [1, 3, 4], "rows after rename")
    catalog.drop_table("py.sales.orders_renamed")
    try:
        catalog.load_table("py.sales.orders_renamed")
        raise AssertionError("a dropped table loaded")
    except NoSuchTableError:
        pass
    catalog.drop_namespace(("py", "sales"))
    catalog.drop_namespace(("py",))
    check(("py",) not in catalog.list_namespaces(), "dropped namespace still listed")
    print("PYICEBERG OK")


if __name__ == "__main__":
    main(sys.argv[1])
