package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.HiveTransactions;
import io.treecat.lakehouse.model.HiveTransactionEntry;
import io.treecat.lakehouse.model.HiveWriteIdsEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.apache.hadoop.hive.metastore.api.AddDynamicPartitions;
import org.apache.hadoop.hive.metastore.api.AllocateTableWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.AllocateTableWriteIdsResponse;
import org.apache.hadoop.hive.metastore.api.DataOperationType;
import org.apache.hadoop.hive.metastore.api.GetValidWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.GetValidWriteIdsResponse;
import org.apache.hadoop.hive.metastore.api.MaxAllocatedTableWriteIdRequest;
import org.apache.hadoop.hive.metastore.api.MaxAllocatedTableWriteIdResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.TableValidWriteIds;
import org.apache.hadoop.hive.metastore.api.TxnToWriteId;
import org.apache.hadoop.hive.metastore.api.TxnType;
import org.apache.thrift.TException;

/**
 * Hive's write ids: each table's own sequence, one id per transaction that writes the table, and the
 * {@code ValidWriteIdList} a reader builds from them: which write ids of the table its snapshot of transactions
 * (a {@link HiveValidTxnList}) does not see. The ids live under their table ({@link HiveTransactions}), so a table
 * must exist to be given one; one instance per catalog (its tables), on the server's one {@link HmsTransactions}.
 */
final class HmsWriteIds {
    private final HmsCalls calls;
    private final HmsTransactions transactions;

    HmsWriteIds(HmsCalls calls, HmsTransactions transactions) {
        this.calls = requireNonNull(calls, "calls is null");
        this.transactions = requireNonNull(transactions, "transactions is null");
    }

    /**
     * One write id of the table for each of the request's transactions, which must all be open (and not read-only).
     * A transaction that has one already gets it again, as in Hive; with {@code reallocate} it gets a new one.
     */
    AllocateTableWriteIdsResponse allocate(AllocateTableWriteIdsRequest request) throws TException {
        if (request.isSetReplPolicy() || request.isSetSrcTxnToWriteIdList()) {
            throw new MetaException("Replicated write ids (replPolicy, srcTxnToWriteIdList) are not supported");
        }
        if (!request.isSetTxnIds()) {
            throw new MetaException("No transaction ids given to allocate write ids for");
        }
        HmsCalls.TableName name = calls.tableName(request.getDbName(), request.getTableName());
        String fullName = name.db() + "." + name.name();
        List<Long> txnIds = new ArrayList<>(new TreeSet<>(request.getTxnIds()));
        if (txnIds.isEmpty()) {
            return new AllocateTableWriteIdsResponse(new ArrayList<>());
        }
        transactions.expire();
        ObjectPath table = calls.tablePath(name);
        return calls.write(Action.COMMIT_TABLE, table, HmsTransactions.COUNTER_RETRIES, txn -> {
            if (calls.findTable(txn, name.db(), name.name()).isEmpty()) {
                String where = calls.catalog().equals(transactions.catalog())
                        ? ""
                        : " in catalog " + calls.names().hmsName(calls.catalog());
                throw new MetaException("Table " + fullName + " does not exist" + where
                        + ": TreeCat keeps a table's write ids with the table, so only an existing table gets them");
            }
            Map<Long, HiveTransactionEntry> open = new LinkedHashMap<>();
            List<String> refused = new ArrayList<>();
            for (long id : txnIds) {
                Optional<HiveTransactionEntry> found = HiveTransactions.find(txn, transactions.catalog(), id);
                if (found.isEmpty()) {
                    refused.add("{" + id + ",unknown}");
                } else if (!found.get().isOpen()) {
                    refused.add("{" + id + "," + found.get().state().name() + "}");
                } else if (TxnType.READ_ONLY.name().equals(found.get().txnType())) {
                    refused.add("{" + id + ",read-only}");
                } else {
                    open.put(id, found.get());
                }
            }
            if (!refused.isEmpty()) {
                throw new MetaException("Write ID allocation failed on " + fullName
                        + " as not all input txns in open state or read-only: " + String.join("", refused));
            }
            List<TxnToWriteId> allocated = new ArrayList<>();
            List<Long> needing = new ArrayList<>();
            for (Map.Entry<Long, HiveTransactionEntry> entry : open.entrySet()) {
                Long existing = entry.getValue().writeIds().get(fullName);
                boolean stillTheTables = existing != null
                        && HiveTransactions.transactionOf(txn, table, existing)
                                .orElse(-1L)
                                .equals(entry.getKey());
                if (stillTheTables && !request.isReallocate()) {
                    allocated.add(new TxnToWriteId(entry.getKey(), existing));
                } else {
                    needing.add(entry.getKey());
                }
            }
            if (!needing.isEmpty()) {
                long writeId = HiveTransactions.allocateWriteIds(txn, table, needing);
                for (long id : needing) {
                    HiveTransactions.update(
                            txn, transactions.catalog(), id, open.get(id).withWriteId(fullName, writeId));
                    allocated.add(new TxnToWriteId(id, writeId++));
                }
            }
            return new AllocateTableWriteIdsResponse(allocated);
        });
    }

    /** The largest write id the table was given; 0 if none. */
    MaxAllocatedTableWriteIdResponse maxAllocated(MaxAllocatedTableWriteIdRequest request) throws TException {
        HmsCalls.TableName name = calls.tableName(request.getDbName(), request.getTableName());
        return calls.read(
                Action.LIST_TRANSACTIONS,
                calls.tablePath(name),
                txn -> new MaxAllocatedTableWriteIdResponse(HiveTransactions.writeIdCounter(txn, calls.tablePath(name))
                                .map(HiveWriteIdsEntry::nextWriteId)
                                .orElse(1L)
                        - 1));
    }

    /** Hive's {@code get_valid_write_ids}: per table, which write ids the request's snapshot of transactions sees. */
    GetValidWriteIdsResponse validWriteIds(GetValidWriteIdsRequest request) throws TException {
        List<String> tables = request.getFullTableNames() == null ? List.of() : request.getFullTableNames();
        List<HmsCalls.TableName> names = new ArrayList<>();
        for (String table : tables) {
            names.add(fullTableName(table));
        }
        HiveValidTxnList given = request.isSetValidTxnList() ? HiveValidTxnList.parse(request.getValidTxnList()) : null;
        transactions.expire();
        return calls.read(Action.LIST_TRANSACTIONS, HiveTransactions.root(transactions.catalog()), txn -> {
            HiveValidTxnList snapshot = given;
            if (snapshot == null) {
                long current = 0;
                if (request.isSetWriteId()) {
                    if (names.isEmpty()) {
                        throw new MetaException("A write id needs the table it belongs to");
                    }
                    current = HiveTransactions.transactionOf(txn, calls.tablePath(names.get(0)), request.getWriteId())
                            .orElseThrow(() -> new MetaException(
                                    "invalid write id " + request.getWriteId() + " for table " + tables.get(0)));
                }
                snapshot = HiveValidTxnList.of(transactions.openTransactions(txn, List.of(TxnType.READ_ONLY)), current);
            }
            List<TableValidWriteIds> answer = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                answer.add(validWriteIds(txn, tables.get(i), calls.tablePath(names.get(i)), snapshot));
            }
            return new GetValidWriteIdsResponse(answer);
        });
    }

    /** {@code <db>.<table>}, as Hive's clients name tables here. */
    private static HmsCalls.TableName fullTableName(String name) throws MetaException {
        int dot = name == null ? -1 : name.indexOf('.');
        if (dot <= 0 || dot == name.length() - 1 || name.indexOf('.', dot + 1) >= 0) {
            throw new MetaException("Invalid table name '" + name + "': expected <database>.<table>");
        }
        return new HmsCalls.TableName(
                HmsNames.normalize(name.substring(0, dot)), HmsNames.normalize(name.substring(dot + 1)));
    }

    /**
     * Hive's {@code TxnHandler.getValidWriteIdsForTable}: the high water mark is the largest write id of a transaction
     * at most the snapshot's high water mark (else the largest handed out); below it, every write id whose transaction
     * the snapshot does not see is invalid, marked aborted if the snapshot has its transaction aborted. If no write up
     * to the mark is valid, Hive answers the lowest invalid one as mark and only exception, and so does this.
     */
    private static TableValidWriteIds validWriteIds(
            LakeTransaction txn, String fullName, ObjectPath table, HiveValidTxnList snapshot) {
        long next = HiveTransactions.writeIdCounter(txn, table)
                .map(HiveWriteIdsEntry::nextWriteId)
                .orElse(1L);
        List<HiveTransactions.WriteId> writes = HiveTransactions.writeIdsUpTo(txn, table, next - 1);
        long highWaterMark = 0;
        for (HiveTransactions.WriteId write : writes) {
            if (write.txnId() <= snapshot.highWaterMark()) {
                highWaterMark = Math.max(highWaterMark, write.writeId());
            }
        }
        if (highWaterMark <= 0) {
            highWaterMark = next - 1;
        }
        List<Long> invalid = new ArrayList<>();
        BitSet aborted = new BitSet();
        long minOpen = Long.MAX_VALUE;
        boolean foundValid = false;
        for (HiveTransactions.WriteId write : writes) {
            if (write.writeId() > highWaterMark) {
                break;
            }
            if (snapshot.isValid(write.txnId())) {
                foundValid = true;
                continue;
            }
            invalid.add(write.writeId());
            if (snapshot.isAborted(write.txnId())) {
                aborted.set(invalid.size() - 1);
            } else {
                minOpen = Math.min(minOpen, write.writeId());
            }
        }
        if (!foundValid) {
            long lowest = invalid.isEmpty() ? -1 : invalid.get(0);
            invalid.clear();
            aborted.clear();
            if (lowest != -1) {
                invalid.add(lowest);
                highWaterMark = lowest;
                if (lowest != minOpen) {
                    aborted.set(0);
                }
            }
        }
        TableValidWriteIds ids =
                new TableValidWriteIds(fullName, highWaterMark, invalid, ByteBuffer.wrap(aborted.toByteArray()));
        if (minOpen < Long.MAX_VALUE) {
            ids.setMinOpenWriteId(minOpen);
        }
        return ids;
    }

    /**
     * Hive's {@code add_dynamic_partitions}: the partitions a transaction wrote, which Hive keeps for its compactor and
     * its write-conflict check. TreeCat runs neither, so it checks the transaction is open and keeps nothing.
     */
    void addDynamicPartitions(AddDynamicPartitions request) throws TException {
        if (request.getOperationType() == null || request.getOperationType() == DataOperationType.UNSET) {
            throw new MetaException("add_dynamic_partitions needs the operation type (INSERT, UPDATE, DELETE)");
        }
        calls.tableName(request.getDbname(), request.getTablename());
        transactions.checkOpen(request.getTxnid());
    }
}
