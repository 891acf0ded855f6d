"""PyIceberg with a built-in principal's credential against a TreeCat server with auth.enabled.

Run by PyIcebergAuthIT (catalog-server). The credential comes from the environment (TREECAT_CREDENTIAL), never
the command line. Every check raises on a mismatch; the last line printed is "PYICEBERG AUTH OK".

usage: pyiceberg_auth.py <catalog uri>
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
    credential = os.environ["TREECAT_CREDENTIAL"]
    catalog = load_catalog("treecat", type="rest", uri=uri, credential=credential, scope="catalog")
    catalog.create_namespace("authn")
    schema = Schema(NestedField(1, "id", LongType(), required=False))
    table = catalog.create_table("authn.t", schema=schema)
    table.append(pa.table({"id": pa.array([1, 2, 3], type=pa.int64())}))
    loaded = catalog.load_table("authn.t")
    ids = sorted(row["id"] for row in loaded.scan().to_arrow().to_pylist())
    check(ids == [1, 2, 3], f"rows read back: {ids}")

    # Without a credential every route is 401: PyIceberg raises UnauthorizedError.
    try:
        anonymous = load_catalog("anonymous", type="rest", uri=uri)
        anonymous.list_namespaces()
        raise AssertionError("a client without a credential was let in")
    except UnauthorizedError as e:
        # Which 401 reason depends on what PyIceberg sends without a credential; any is a refusal.
        check("NotAuthorizedException" in str(e), f"unexpected refusal: {e}")
        print(f"refused without a credential: {e}")

    # A wrong secret: the token endpoint's invalid_client.
    client_id = credential.split(":", 1)[0]
    try:
        load_catalog("wrong", type="rest", uri=uri, credential=client_id + ":wrong").list_namespaces()
        raise AssertionError("a wrong secret was let in")
    except Exception as e:  # PyIceberg raises its OAuthError or UnauthorizedError, by version
        check("invalid_client" in str(e) or "Unknown client id" in str(e), f"unexpected refusal: {type(e)} {e}")
    print("PYICEBERG AUTH OK")


if __name__ == "__main__":
    main(sys.argv[1])
