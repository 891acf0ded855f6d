package io.treecat.server;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hive.metastore.HiveMetaStoreClient;

/**
 * Hive 4's own client over its HTTP transport with {@code metastore.client.auth.mode=JWT}, run in a child JVM: Hive
 * reads the token only from the {@code HMS_JWT} environment variable, which a JVM cannot set for itself. Prints the
 * databases and the tables of each (or the failure) and exits 0, or 1 when the client failed.
 *
 * <p>Arguments: the port and the database whose tables to list.
 */
public final class HiveJwtClientMain {
    private HiveJwtClientMain() {}

    public static void main(String[] arguments) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        Configuration conf = new Configuration(false);
        conf.set("metastore.thrift.uris", "thrift://127.0.0.1:" + arguments[0]);
        conf.set("metastore.client.thrift.transport.mode", "http");
        conf.set("metastore.client.auth.mode", "JWT");
        conf.set("metastore.connect.retries", "1");
        conf.set("metastore.client.connect.retry.delay", "0s");
        try (HiveMetaStoreClient client = new HiveMetaStoreClient(conf)) {
            out.println("databases=" + client.getAllDatabases());
            out.println("tables=" + client.getAllTables(arguments[1]));
        } catch (Exception e) {
            out.println("failed=" + e);
            System.exit(1);
        }
        System.exit(0);
    }
}
