"""PyIceberg with an external OpenID Connect issuer's access token against a TreeCat server with auth.enabled.

Run by PyIcebergOidcIT (catalog-server). The tokens come from the environment (TREECAT_TOKEN: a valid one,
TREECAT_FOREIGN_TOKEN: one for another audience), never the command line. Every check raises on a mismatch; the
last line printed is "PYICEBERG OIDC OK".

usage: pyiceberg_oidc.py <catalog uri>
"""

import os
import sys

import pyarrow as pa
from pyiceberg.catalog import load_catalog
from pyiceberg.exceptions import UnauthorizedError
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def main(uri):
    catalog = load_catalog("treecat", type="rest", uri=uri, token=os.environ["TREECAT_TOKEN"])
    catalog.create_namespace("oidc")
    schema = Schema(NestedField(1, "id", LongType(), required=False))
    table = catalog.create_table("oidc.t", schema=schema)
    table.append(pa.table({"id": pa.array([1, 2, 3], type=pa.int64())}))
    loaded = catalog.load_table("oidc.t")
    ids = sorted(row["id"] for row in loaded.scan().to_arrow().to_pylist())
    check(ids == [1, 2, 3], f"rows read back: {ids}")

    # The same issuer's token for another audience: 401, which PyIceberg raises as UnauthorizedError.
    try:
        load_catalog("foreign", type="rest", uri=uri, token=os.environ["TREECAT_FOREIGN_TOKEN"]).list_namespaces()
        raise AssertionError("a token for another audience was let in")
    except UnauthorizedError as e:
        check("The token's audience is not this server" in str(e), f"unexpected refusal: {e}")
        print(f"refused for another audience: {e}")
    print("PYICEBERG OIDC OK")


if __name__ == "__main__":
    main(sys.argv[1])
