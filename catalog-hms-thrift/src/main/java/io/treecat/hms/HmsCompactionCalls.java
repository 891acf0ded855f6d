package io.treecat.hms;

import static java.util.Objects.requireNonNull;

import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.catalog.HiveTransactions;
import io.treecat.lakehouse.model.HiveCompactionEntry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.hadoop.hive.metastore.api.CompactionRequest;
import org.apache.hadoop.hive.metastore.api.CompactionResponse;
import org.apache.hadoop.hive.metastore.api.GetLatestCommittedCompactionInfoRequest;
import org.apache.hadoop.hive.metastore.api.GetLatestCommittedCompactionInfoResponse;
import org.apache.hadoop.hive.metastore.api.MetaException;
import org.apache.hadoop.hive.metastore.api.ShowCompactRequest;
import org.apache.hadoop.hive.metastore.api.ShowCompactResponse;
import org.apache.hadoop.hive.metastore.api.ShowCompactResponseElement;
import org.apache.thrift.TException;

/**
 * Hive's compaction requests ({@code compact}, {@code compact2}), recorded in the tree and listed by
 * {@code show_compact} as Hive lists a queued request: state {@value #INITIATED}, pool {@value #DEFAULT_POOL}, no
 * worker. TreeCat runs no compactor and no cleaner, so a request stays initiated, and a second request for the same
 * table or partition is refused as Hive refuses one while the first is queued. As in Hive, a request names any
 * table and partition: nothing is checked against the catalog.
 */
final class HmsCompactionCalls {
    static final String INITIATED = "initiated";
    static final String REFUSED = "refused";
    static final String DEFAULT_POOL = "default";
    /** What Hive lists as the job of a compaction no worker has run. */
    static final String NO_JOB = "None";

    private final HmsCalls calls;
    /** Where the requests live: the HMS catalog's transaction area, whichever catalog a request names. */
    private final HmsCalls home;

    private final Clock clock;

    /**
     * @param calls the calls of the catalog the request is in (its table names)
     * @param home the HMS catalog's calls, whose transaction area holds every request (as Hive's one queue)
     */
    HmsCompactionCalls(HmsCalls calls, HmsCalls home, Clock clock) {
        this.calls = requireNonNull(calls, "calls is null");
        this.home = requireNonNull(home, "home is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    public void compact(CompactionRequest request) throws TException {
        compact2(request);
    }

    public CompactionResponse compact2(CompactionRequest request) throws TException {
        if (request == null || request.getType() == null) {
            throw new MetaException("A compaction request needs a table and a type");
        }
        HmsCalls.TableName name = calls.tableName(request.getDbname(), request.getTablename());
        String partition =
                request.getPartitionname() == null || request.getPartitionname().isEmpty()
                        ? null
                        : request.getPartitionname();
        CompactionRequest queued = request.deepCopy();
        queued.setDbname(name.db());
        queued.setTablename(name.name());
        byte[] struct = HmsStructs.encode(queued, "the compaction request");
        long now = clock.millis();
        return calls.write(Action.MANAGE_TRANSACTIONS, calls.tablePath(name), HmsTransactions.COUNTER_RETRIES, txn -> {
            for (HiveTransactions.Compaction queuedBefore : HiveTransactions.compactions(txn, home.catalog())) {
                HiveCompactionEntry entry = queuedBefore.entry();
                if (entry.database().equals(name.db())
                        && entry.table().equals(name.name())
                        && Objects.equals(entry.partition(), partition)
                        && INITIATED.equals(entry.state())) {
                    CompactionResponse refused = new CompactionResponse(-1, REFUSED, false);
                    refused.setErrormessage("Compaction is already scheduled with state='" + entry.state() + "' and id="
                            + queuedBefore.id());
                    return refused;
                }
            }
            long id = HiveTransactions.addCompaction(
                    txn,
                    home.warehouse(),
                    HiveCompactionEntry.of(name.db(), name.name(), partition, INITIATED, now, struct));
            return new CompactionResponse(id, INITIATED, true);
        });
    }

    /** The queued requests, in id order, filtered as the request asks. */
    public ShowCompactResponse show_compact(ShowCompactRequest request) throws TException {
        ShowCompactRequest filter = request == null ? new ShowCompactRequest() : request;
        String db = blankToNull(filter.getDbName());
        String table = blankToNull(filter.getTbName());
        return calls.read(Action.LIST_TRANSACTIONS, HiveTransactions.root(home.catalog()), txn -> {
            List<ShowCompactResponseElement> elements = new ArrayList<>();
            for (HiveTransactions.Compaction found : HiveTransactions.compactions(txn, home.catalog())) {
                ShowCompactResponseElement element = element(found);
                if ((filter.isSetId() && filter.getId() > 0 && filter.getId() != found.id())
                        || (db != null && !db.equalsIgnoreCase(element.getDbname()))
                        || (table != null && !table.equalsIgnoreCase(element.getTablename()))
                        || (blankToNull(filter.getPartName()) != null
                                && !filter.getPartName().equals(element.getPartitionname()))
                        || (filter.getType() != null && filter.getType() != element.getType())
                        || (blankToNull(filter.getState()) != null && !matchesState(filter.getState(), element))
                        || (blankToNull(filter.getPoolName()) != null
                                && !filter.getPoolName().equals(element.getPoolName()))) {
                    continue;
                }
                elements.add(element);
                if (filter.isSetLimit() && filter.getLimit() > 0 && elements.size() >= filter.getLimit()) {
                    break;
                }
            }
            return new ShowCompactResponse(elements);
        });
    }

    /** A state filter is a state's name or Hive's one-letter code ({@code i} for initiated). */
    private static boolean matchesState(String state, ShowCompactResponseElement element) {
        return state.equalsIgnoreCase(element.getState())
                || (state.length() == 1 && element.getState().startsWith(state.toLowerCase(java.util.Locale.ROOT)));
    }

    private static String blankToNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    private static ShowCompactResponseElement element(HiveTransactions.Compaction found) throws MetaException {
        HiveCompactionEntry entry = found.entry();
        CompactionRequest request = HmsStructs.decode(
                new CompactionRequest(), entry.hiveRequest(), "the stored compaction request " + found.id());
        ShowCompactResponseElement element =
                new ShowCompactResponseElement(entry.database(), entry.table(), request.getType(), entry.state());
        if (entry.partition() != null) {
            element.setPartitionname(entry.partition());
        }
        if (request.getRunas() != null) {
            element.setRunAs(request.getRunas());
        }
        element.setId(found.id());
        element.setEnqueueTime(entry.enqueued());
        element.setHadoopJobId(NO_JOB);
        element.setPoolName(request.getPoolName() == null ? DEFAULT_POOL : request.getPoolName());
        if (request.getInitiatorId() != null) {
            element.setInitiatorId(request.getInitiatorId());
        }
        if (request.getInitiatorVersion() != null) {
            element.setInitiatorVersion(request.getInitiatorVersion());
        }
        return element;
    }

    /** No compaction ever commits here: none to report. */
    public GetLatestCommittedCompactionInfoResponse get_latest_committed_compaction_info(
            GetLatestCommittedCompactionInfoRequest request) throws TException {
        if (request == null) {
            throw new MetaException("get_latest_committed_compaction_info needs a request");
        }
        calls.tableName(request.getDbname(), request.getTablename());
        return new GetLatestCommittedCompactionInfoResponse(new ArrayList<>());
    }
}
