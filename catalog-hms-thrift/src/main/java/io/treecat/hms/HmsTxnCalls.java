package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import java.util.List;
import org.apache.hadoop.hive.metastore.api.AbortTxnRequest;
import org.apache.hadoop.hive.metastore.api.AbortTxnsRequest;
import org.apache.hadoop.hive.metastore.api.AddDynamicPartitions;
import org.apache.hadoop.hive.metastore.api.AllocateTableWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.AllocateTableWriteIdsResponse;
import org.apache.hadoop.hive.metastore.api.CommitTxnRequest;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsInfoResponse;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsRequest;
import org.apache.hadoop.hive.metastore.api.GetOpenTxnsResponse;
import org.apache.hadoop.hive.metastore.api.GetValidWriteIdsRequest;
import org.apache.hadoop.hive.metastore.api.GetValidWriteIdsResponse;
import org.apache.hadoop.hive.metastore.api.HeartbeatTxnRangeRequest;
import org.apache.hadoop.hive.metastore.api.HeartbeatTxnRangeResponse;
import org.apache.hadoop.hive.metastore.api.MaxAllocatedTableWriteIdRequest;
import org.apache.hadoop.hive.metastore.api.MaxAllocatedTableWriteIdResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.OpenTxnRequest;
import org.apache.hadoop.hive.metastore.api.OpenTxnsResponse;
import org.apache.hadoop.hive.metastore.api.TxnType;
import org.apache.thrift.TException;

/**
 * Hive's ACID transaction calls, as Hive's {@code DbTxnManager} and Trino's Hive connector send them around a
 * transactional write and read: open, commit, abort, heartbeat, list, and the write ids of a table
 * ({@link HmsTransactions}, {@link HmsWriteIds}). {@code heartbeat} and the lock calls of a transaction are
 * {@link HmsLockCalls}'.
 */
final class HmsTxnCalls {
    private final HmsTransactions transactions;
    private final HmsWriteIds writeIds;

    HmsTxnCalls(HmsTransactions transactions, HmsWriteIds writeIds) {
        this.transactions = requireNonNull(transactions, "transactions is null");
        this.writeIds = requireNonNull(writeIds, "writeIds is null");
    }

    private static <T> T required(T request, String call) throws MetaException {
        if (request == null) {
            throw new MetaException(call + " needs a request");
        }
        return request;
    }

    public OpenTxnsResponse open_txns(OpenTxnRequest request) throws TException {
        required(request, "open_txns");
        if (request.isSetReplPolicy() || request.isSetReplSrcTxnIds()) {
            throw new MetaException("Replicated transactions (replPolicy, replSrcTxnIds) are not supported");
        }
        return new OpenTxnsResponse(transactions.open(
                request.getNum_txns(), request.getTxn_type(), request.getUser(), request.getHostname()));
    }

    public void commit_txn(CommitTxnRequest request) throws TException {
        required(request, "commit_txn");
        if (request.isSetReplPolicy() || request.isSetReplLastIdInfo() || request.isSetKeyValue()) {
            throw new MetaException(
                    "Replicated commits (replPolicy, replLastIdInfo) and key-value commits are not supported");
        }
        transactions.commit(request.getTxnid());
    }

    public void abort_txn(AbortTxnRequest request) throws TException {
        required(request, "abort_txn");
        if (request.isSetReplPolicy()) {
            throw new MetaException("Replicated aborts (replPolicy) are not supported");
        }
        transactions.abort(request.getTxnid());
    }

    public void abort_txns(AbortTxnsRequest request) throws TException {
        required(request, "abort_txns");
        transactions.abortAll(request.getTxn_ids() == null ? List.of() : request.getTxn_ids());
    }

    public GetOpenTxnsResponse get_open_txns() throws TException {
        return transactions.openTransactions(List.of(TxnType.READ_ONLY));
    }

    public GetOpenTxnsResponse get_open_txns_req(GetOpenTxnsRequest request) throws TException {
        required(request, "get_open_txns_req");
        return transactions.openTransactions(
                request.getExcludeTxnTypes() == null ? List.of() : request.getExcludeTxnTypes());
    }

    public GetOpenTxnsInfoResponse get_open_txns_info() throws TException {
        return transactions.openTransactionsInfo();
    }

    public HeartbeatTxnRangeResponse heartbeat_txn_range(HeartbeatTxnRangeRequest request) throws TException {
        required(request, "heartbeat_txn_range");
        return transactions.heartbeatRange(request.getMin(), request.getMax());
    }

    public AllocateTableWriteIdsResponse allocate_table_write_ids(AllocateTableWriteIdsRequest request)
            throws TException {
        return writeIds.allocate(required(request, "allocate_table_write_ids"));
    }

    public MaxAllocatedTableWriteIdResponse get_max_allocated_table_write_id(MaxAllocatedTableWriteIdRequest request)
            throws TException {
        return writeIds.maxAllocated(required(request, "get_max_allocated_table_write_id"));
    }

    public GetValidWriteIdsResponse get_valid_write_ids(GetValidWriteIdsRequest request) throws TException {
        return writeIds.validWriteIds(required(request, "get_valid_write_ids"));
    }

    public void add_dynamic_partitions(AddDynamicPartitions request) throws TException {
        writeIds.addDynamicPartitions(required(request, "add_dynamic_partitions"));
    }
}
