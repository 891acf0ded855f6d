"""MultiTableWrite from Python, as PySpark reaches it: py4j's client on the driver JVM's gateway.

In PySpark, `spark._jvm` is this gateway's `jvm`, `spark._jsparkSession` the JVM's SparkSession (here the
gateway's entry point hands it over), and a DataFrame's `_jdf` the JVM's Dataset.

Arguments: the gateway's port, its auth token, the namespace of the tables (orders, payments).
Prints one JSON line: the heads a commit answered, and the message of a write that failed.
"""
import json
import sys

from py4j.java_gateway import GatewayParameters, JavaGateway
from py4j.protocol import Py4JJavaError

port, token, namespace = int(sys.argv[1]), sys.argv[2], sys.argv[3]
gateway = JavaGateway(gateway_parameters=GatewayParameters(port=port, auth_token=token, auto_convert=True))
try:
    spark = gateway.entry_point.spark()
    MultiTableWrite = gateway.jvm.io.treecat.spark.MultiTableWrite

    heads = (
        MultiTableWrite.in_(spark, "lake")
        .append(f"{namespace}.orders", spark.sql("SELECT 3L AS id, 'python' AS status"))
        .delete(f"{namespace}.payments", "id = 1")
        .commit()
    )

    # One write of two fails as a whole: the orders append must not land either.
    try:
        (
            MultiTableWrite.in_(spark, "lake")
            .append(f"{namespace}.orders", spark.sql("SELECT 4L AS id, 'lost' AS status"))
            .append(f"{namespace}.missing", spark.sql("SELECT 4L AS id"))
            .commit()
        )
        failure = None
    except Py4JJavaError as e:
        failure = e.java_exception.getMessage()

    print(json.dumps({"heads": {name: heads[name] for name in heads}, "failure": failure}))
finally:
    gateway.close()
