package io.treecat.core.txn;

import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.CatalogService;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.CommitResult;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.bson.BsonDocument;

/**
 * The process {@link TestCrashRecovery} kills: commits transactions from several threads as fast as
 * it can and prints {@code ACK <key> <vid>} after each commit returns, until it is killed.
 */
public final class CrashWorkload {
    static final ObjectPath ROOT = ObjectPath.of("crash");

    private CrashWorkload() {}

    public static void main(String[] args) throws Exception {
        Path directory = Path.of(args[0]);
        String run = args[1];
        PrintStream out = System.out;
        CatalogService catalog = CatalogService.open(directory);
        if (catalog.get(ROOT, ReadPoint.LATEST).isEmpty()) {
            catalog.commit(WriteSet.of(new WriteOp.Add(ROOT, ObjectKind.INNER, BsonDocument.parse("{count: 0}"))));
        }
        out.println("READY");
        out.flush();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            Thread worker = new Thread(() -> {
                for (int i = 0; ; i++) {
                    String key = "r" + run + "t" + thread + "n" + i;
                    ObjectPath object = ROOT.child(key);
                    CommitResult result = catalog.commit(WriteSet.of(
                            new WriteOp.Add(object, ObjectKind.INNER, BsonDocument.parse("{thread: " + thread + "}")),
                            new WriteOp.Add(object.child("a"), ObjectKind.LEAF, BsonDocument.parse("{i: " + i + "}")),
                            new WriteOp.Add(object.child("b"), ObjectKind.LEAF, BsonDocument.parse("{i: " + i + "}")),
                            new WriteOp.Merge(ROOT, BsonDocument.parse("{count: {op: '+', val: 1}}"))));
                    synchronized (out) {
                        out.println("ACK " + key + " " + result.vid());
                        out.flush();
                    }
                }
            });
            worker.start();
            threads.add(worker);
        }
        for (Thread worker : threads) {
            worker.join();
        }
    }
}
