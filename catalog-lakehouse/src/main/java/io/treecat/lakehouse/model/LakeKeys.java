package io.treecat.lakehouse.model;

/**
 * Every key a lake object's value holds, declared once (docs/architecture.md, "The lake model").
 * The stored names are the on-disk format and what path queries name: never rename one.
 *
 * <p>Three kinds of keys:
 * <ul>
 *   <li>shared: read and written by every interface through the records of this package;</li>
 *   <li>protocol-owned sub-documents ({@link #HMS_TABLE}, {@link #HMS_PARTITION},
 *       {@link #HMS_FUNCTION}, {@link #HMS_COMPACTION}, {@link #COLUMN_STATISTICS}, {@link #HMS_METASTORE_UUID},
 *       {@link #HMS_CONSTRAINTS}, {@link #HMS_REFERENCED_BY}): one interface's own encoding, which the records carry
 *       through unchanged so that another interface's write keeps them;</li>
 *   <li>index keys of the Iceberg file index ({@link #FILE_INDEX_HEAD}, the file leaves' fields).</li>
 * </ul>
 */
public final class LakeKeys {
    private LakeKeys() {}

    // ---- every object

    /** The object's {@link ObjectType}. */
    public static final String OBJ_TYPE = "obj_type";
    /** String → string properties of a namespace, table or view. */
    public static final String PROPERTIES = "properties";
    /** Where an object's files live: a URI with a scheme. */
    public static final String LOCATION = "location";
    /** What a catalog is for (Hive's {@code Catalog.description}). */
    public static final String DESCRIPTION = "description";
    /** A catalog's own warehouse settings ({@link io.treecat.lakehouse.storage.StorageSettings}), when it has them. */
    public static final String STORAGE = "storage";

    // ---- tables and views (Iceberg's pointer and what a reader needs without the metadata file)

    /** The current metadata file of an Iceberg table or view: the pointer a commit swaps. */
    public static final String METADATA_LOCATION = "metadata_location";
    /**
     * The metadata file an Iceberg HiveCatalog commit started from (a Hive table parameter): a pointer
     * move that does not start from the current pointer would lose a commit.
     */
    public static final String PREVIOUS_METADATA_LOCATION = "previous_metadata_location";

    public static final String FORMAT_VERSION = "format_version";
    public static final String UUID = "uuid";
    public static final String CURRENT_SNAPSHOT_ID = "current_snapshot_id";
    public static final String CURRENT_VERSION_ID = "current_version_id";
    /** A table's kind: {@value #ICEBERG_TABLE_TYPE}, or Hive's table type ({@code MANAGED_TABLE}, …). */
    public static final String TABLE_TYPE = "table_type";
    /** The {@link #TABLE_TYPE} (and Hive parameter value) of an Iceberg table. */
    public static final String ICEBERG_TABLE_TYPE = "ICEBERG";

    // ---- partitions (one tree level per partition key)

    /** The partition key a level stands for (lower case, as Hive compares names). */
    public static final String PART_KEY = "part_key";
    /** The level's value as text (Hive), or a document of field → value (an Iceberg file-index partition). */
    public static final String PART_VAL = "part_val";
    /** The level's value as a number, for keys of an integer type, so filters compare numerically. */
    public static final String PART_NUM = "part_num";

    // ---- protocol-owned sub-documents

    /** The whole Hive {@code Table} struct, Thrift-binary encoded, so every Hive field round-trips. */
    public static final String HMS_TABLE = "hms_table";
    /**
     * A table's Hive constraints, Thrift-binary encoded ({@code SQLAllTableConstraints}): its primary key, the
     * foreign keys it declares, and its unique, not-null, default and check constraints.
     */
    public static final String HMS_CONSTRAINTS = "hms_constraints";
    /**
     * The Hive foreign keys of other tables (or of this one) that reference this table, Thrift-binary encoded
     * ({@code SQLAllTableConstraints} holding only foreign keys): a copy kept on the referenced side, as Hive keeps
     * one constraint row with both tables, so the referenced table lists them and its drop ends them.
     */
    public static final String HMS_REFERENCED_BY = "hms_referenced_by";
    /** The whole Hive {@code Partition} struct, Thrift-binary encoded. */
    public static final String HMS_PARTITION = "hms_partition";
    /** The whole Hive {@code Function} struct, Thrift-binary encoded. */
    public static final String HMS_FUNCTION = "hms_function";
    /** Hive column statistics of a table or partition: column → encoded statistics. */
    public static final String COLUMN_STATISTICS = "col_stats";
    /** When Hive column statistics were last written (ms since the epoch). */
    public static final String COLUMN_STATISTICS_ANALYZED = "col_stats_analyzed";
    /** A Hive function's class, type and owner, readable by path queries. */
    public static final String FUNCTION_CLASS_NAME = "class_name";

    public static final String FUNCTION_TYPE = "function_type";
    public static final String OWNER = "owner";
    /** The id of a Hive database's function container ({@link ObjectType#FUNCTIONS}); never a Hive table name. */
    public static final String FUNCTIONS_ID = ".functions";
    /**
     * The Hive Metastore's database id ({@code get_metastore_db_uuid}), on the catalog the HMS interface serves as
     * Hive's {@code hive}: made once, kept across restarts.
     */
    public static final String HMS_METASTORE_UUID = "hms_metastore_uuid";
    /**
     * The id of a table's Hive partition marks ({@link ObjectType#PARTITION_EVENTS}, Hive's {@code
     * markPartitionForEvent}); never a partition level's id, which is always {@code key=value}.
     */
    public static final String PARTITION_EVENTS_ID = ".partition_events";
    /** The marks of a {@link ObjectType#PARTITION_EVENTS} object: a list of documents. */
    public static final String EVENTS = "events";
    /** A mark's partition: Hive's escaped partition name ({@code ds=1/hr=2}; empty for an unpartitioned table). */
    public static final String EVENT_PARTITION = "partition";
    /** A mark's event type: Hive's {@code PartitionEventType} name ({@code LOAD_DONE}). */
    public static final String EVENT_TYPE = "event_type";
    /** When a mark was made (ms since the epoch). */
    public static final String EVENT_TIME = "event_time";

    // ---- Hive ACID transactions and write ids (HMS-owned; docs/hms-thrift.md, "Hive transactions")

    /** The id of the HMS catalog's transaction area, {@code /<catalog>/.hive_txns}; never a Hive database name. */
    public static final String HIVE_TRANSACTIONS_ID = ".hive_txns";
    /** Under {@link #HIVE_TRANSACTIONS_ID}: the open and aborted transactions (Hive's {@code TXNS} but the committed). */
    public static final String HIVE_OPEN_TRANSACTIONS_ID = "txns";
    /** Under {@link #HIVE_TRANSACTIONS_ID}: the committed transactions. */
    public static final String HIVE_COMMITTED_TRANSACTIONS_ID = "committed";
    /** Under {@link #HIVE_TRANSACTIONS_ID}: the requested compactions (Hive's {@code COMPACTION_QUEUE}). */
    public static final String HIVE_COMPACTIONS_ID = "compactions";
    /** The id of a table's write-id area, {@code …/<table>/.hive_write_ids}; never a partition level ({@code k=v}). */
    public static final String HIVE_WRITE_IDS_ID = ".hive_write_ids";
    /**
     * The id of the HMS catalog's notification-log index, {@code /<catalog>/.hive_events} (the newest checkpoint),
     * whose children are the older checkpoints, one per checkpoint vid; never a Hive database name.
     */
    public static final String HIVE_EVENTS_ID = ".hive_events";
    /** A checkpoint's vid: the first commit whose events it does not count. */
    public static final String CHECKPOINT_VID = "checkpoint_vid";
    /** A checkpoint's count: the Hive events of every commit before its vid. */
    public static final String EVENTS_BEFORE = "events_before";
    /** The next transaction id and the next compaction id to hand out. */
    public static final String NEXT_TXN_ID = "next_txn_id";

    public static final String NEXT_COMPACTION_ID = "next_compaction_id";
    /** A table's next write id to hand out. */
    public static final String NEXT_WRITE_ID = "next_write_id";
    /** A transaction's state ({@code open}, {@code aborted}, {@code committed}), type, owner and client. */
    public static final String TXN_STATE = "txn_state";

    public static final String TXN_TYPE = "txn_type";
    public static final String USER = "user";
    public static final String HOSTNAME = "hostname";
    /** When a transaction was opened and last heartbeated, ms since the epoch. */
    public static final String STARTED = "started";

    public static final String LAST_HEARTBEAT = "last_heartbeat";
    /** A transaction's write ids: {@code <db>.<table>} → write id. */
    public static final String WRITE_IDS = "write_ids";
    /** The transaction a write id was allocated to. */
    public static final String TXN_ID = "txn_id";
    /** A compaction's target, state and queue time (ms since the epoch). */
    public static final String DATABASE = "db";

    public static final String TABLE = "table";
    public static final String PARTITION = "partition";
    public static final String COMPACTION_STATE = "compaction_state";
    public static final String ENQUEUED = "enqueued";
    /** The Hive {@code CompactionRequest} as sent, Thrift-binary encoded. */
    public static final String HMS_COMPACTION = "hms_compaction";

    // ---- Hive locks (HMS-owned; docs/hms-thrift.md, "Locks")
    /** The id of the HMS catalog's lock table, {@code /<catalog>/.hive_locks}; never a Hive database name. */
    public static final String HIVE_LOCKS_ID = ".hive_locks";
    /** The next lock id to hand out. */
    public static final String NEXT_LOCK_ID = "next_lock_id";
    /** A lock's components: a list of documents with {@link #LOCK_TYPE}, {@link #DATABASE}, {@link #TABLE}, {@link #PARTITION}. */
    public static final String LOCK_COMPONENTS = "components";
    /** A component's Hive {@code LockType} name ({@code EXCLUSIVE}, {@code SHARED_READ}, …). */
    public static final String LOCK_TYPE = "lock_type";
    /** A lock's Hive {@code LockState} name ({@code WAITING}, {@code ACQUIRED}). */
    public static final String LOCK_STATE = "lock_state";
    /** The client's agent string, as sent with the lock request. */
    public static final String AGENT_INFO = "agent_info";
    /** When a lock was granted (ms since the epoch); 0 while it waits. */
    public static final String ACQUIRED_AT = "acquired_at";
    /** How many heartbeats a lock had. */
    public static final String HEARTBEAT_COUNT = "heartbeat_count";
    /** The lock a waiting lock waits behind (0: none), and that lock's component it conflicts with (from 1). */
    public static final String BLOCKED_BY = "blocked_by";

    public static final String BLOCKED_BY_COMPONENT = "blocked_by_component";
    // ---- Iceberg idempotency keys (docs/iceberg-rest.md, "Idempotency keys")
    /** The id of the area of idempotency-key records, {@code /.idempotency_keys}, beside the catalogs (never one). */
    public static final String IDEMPOTENCY_KEYS_ID = ".idempotency_keys";
    /** The SHA-256 of the request a key was first used with. */
    public static final String FINGERPRINT = "fingerprint";
    /** When a key was first used, ms since the epoch: its lifetime counts from there. */
    public static final String CREATED = "created";
    /** What the request's commit did, for a repeat to be answered from: name → values. */
    public static final String OUTCOME = "outcome";
    // ---- the system area (docs/security.md): built-in principals
    /**
     * The id of TreeCat's own area, {@code /.system}, beside the catalogs (never one): built-in principals now,
     * roles and grants later. Only the lakehouse's own operations write there; native writes are refused.
     */
    public static final String SYSTEM_ID = ".system";
    /** The id of the built-in principals' area, {@code /.system/principals}. */
    public static final String PRINCIPALS_ID = "principals";
    /** A built-in principal's name: who its tokens say the caller is. */
    public static final String PRINCIPAL_NAME = "name";
    /** A built-in principal's client id, the first half of a client's {@code credential=id:secret}. */
    public static final String CLIENT_ID = "client_id";
    /** The bcrypt hash of a built-in principal's secret (never the secret). */
    public static final String SECRET_HASH = "secret_hash";
    /** When a built-in principal's secret was last set, ms since the epoch. */
    public static final String SECRET_SET = "secret_set";
    // ---- roles and grants (docs/security.md, "Authorization")
    /** The id of the roles' area, {@code /.system/roles}; each role's members are its children. */
    public static final String ROLES_ID = "roles";
    /** The id of the grants' area, {@code /.system/grants}; its value counts the changes to roles and grants. */
    public static final String GRANTS_ID = "grants";
    /** A role's name, or a role member's principal name. */
    public static final String ROLE_NAME = "name";
    /** The principal a role member entry names. */
    public static final String MEMBER = "principal";
    /** Whom a grant is to: {@code role} or {@code principal}. */
    public static final String GRANTEE_KIND = "grantee_kind";
    /** The role's or principal's name a grant is to. */
    public static final String GRANTEE = "grantee";
    /** The privilege a grant gives (a {@code Privilege} name). */
    public static final String PRIVILEGE = "privilege";
    /** The path of the object a grant is on, in its text form ({@code /} for everything). */
    public static final String GRANTED_ON = "on";
    /** How many times roles and grants changed: authorizers re-read them when it moves. */
    public static final String GENERATION = "generation";
    // ---- the Iceberg file index (…/<table>/_files and the file leaves)

    /** The id of a table's file-index node. */
    public static final String FILE_INDEX_ID = "_files";
    /** The snapshot whose files the index holds. */
    public static final String FILE_INDEX_HEAD = "head";
    /**
     * Snapshot id → sequence number, of the snapshots committed in the same write as the head, before it, with only
     * appends after them: planned at the node's own version, the leaves filtered by data sequence number.
     */
    public static final String FILE_INDEX_HEAD_CHAIN = "head_chain";

    public static final String FILE_CONTENT = "content";
    public static final String FILE_PATH = "file_path";
    public static final String FILE_FORMAT = "file_format";
    public static final String SPEC_ID = "spec_id";
    public static final String PARTITION_PATH = "partition_path";
    public static final String RECORD_COUNT = "record_count";
    public static final String FILE_SIZE_IN_BYTES = "file_size_in_bytes";
    public static final String DATA_SEQUENCE_NUMBER = "data_sequence_number";
    public static final String FILE_SEQUENCE_NUMBER = "file_sequence_number";
    public static final String SNAPSHOT_ID = "snapshot_id";
    public static final String SPLIT_OFFSETS = "split_offsets";
    public static final String KEY_METADATA = "key_metadata";
    public static final String SORT_ORDER_ID = "sort_order_id";
    public static final String FIRST_ROW_ID = "first_row_id";
    public static final String EQUALITY_IDS = "equality_ids";
    public static final String REFERENCED_DATA_FILE = "referenced_data_file";
    public static final String CONTENT_OFFSET = "content_offset";
    public static final String CONTENT_SIZE_IN_BYTES = "content_size_in_bytes";
    /** Column id → size, value, null and NaN counts of a file leaf. */
    public static final String COLUMN_SIZES = "column_sizes";

    public static final String VALUE_COUNTS = "value_counts";
    public static final String NULL_VALUE_COUNTS = "null_value_counts";
    public static final String NAN_VALUE_COUNTS = "nan_value_counts";
    /** Column id → serialized lower and upper bound of a file leaf (exact, Iceberg's single-value form). */
    public static final String LOWER_BOUNDS = "lower_bounds";

    public static final String UPPER_BOUNDS = "upper_bounds";
    /** Column name → readable lower and upper bound of a file leaf's primitive columns, for path queries only. */
    public static final String LOWER = "lower";

    public static final String UPPER = "upper";

    // ---- table purges (docs/object-storage.md, "Purge")

    /** The id of a catalog's purge queue, {@code /<catalog>/.purges}; never a namespace's id (those are checked names). */
    public static final String PURGE_QUEUE_ID = ".purges";
    /** The location whose files a purge deletes: the dropped table's {@code location}. */
    public static final String PURGE_LOCATION = "location";
    /** The dropped table's last metadata file, from which its files are found. */
    public static final String PURGE_METADATA_LOCATION = "metadata_location";
    /** The dropped table's path in the tree. */
    public static final String PURGE_PATH = "path";
    /** The dropped table, {@code namespace.table}, for messages and metrics only. */
    public static final String PURGE_TABLE = "table";
    /** When the drop asked for the purge, ms since the epoch. */
    public static final String PURGE_REQUESTED = "requested";
    /** How many attempts failed so far. */
    public static final String PURGE_ATTEMPTS = "attempts";
    /** Not before this time (ms since the epoch) is the next attempt made. */
    public static final String PURGE_NEXT_ATTEMPT = "next_attempt";
    /** Why the last attempt failed (the store's error, never a credential). */
    public static final String PURGE_LAST_ERROR = "last_error";
}
