package io.treecat.lakehouse.model;

import io.treecat.core.model.CatalogObject;
import java.util.Optional;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * What a lake object is, as stored in its {@code obj_type} field. The stored names are part of the
 * on-disk format and of the path queries users write ({@code [obj_type='table']}): never rename one.
 */
public enum ObjectType {
    /** {@code /<catalog>}: one per Iceberg REST prefix and per HMS catalog; holds its warehouse location. */
    CATALOG("catalog"),
    /** {@code /<catalog>/<ns>[/<ns>…]}: an Iceberg namespace, a Hive database at the first level. */
    NAMESPACE("namespace"),
    TABLE("table"),
    VIEW("view"),
    /** A partition level under a table: a Hive {@code key=value} level or an Iceberg file-index partition. */
    PARTITION("partition"),
    /** A leaf under an Iceberg table's partition: one data or delete file with its statistics. */
    FILE("file"),
    /** {@code …/<table>/_files}: an Iceberg table's file index head, its version the vid where the head's files are. */
    FILE_INDEX("file_index"),
    /** {@code /<catalog>/<db>/.functions}: the container of a Hive database's functions. */
    FUNCTIONS("hms_functions"),
    /** A Hive function under its database's {@link #FUNCTIONS} container. */
    FUNCTION("function"),
    /** {@code …/<table>/.partition_events}: the Hive partition marks of a table ({@code markPartitionForEvent}). */
    PARTITION_EVENTS("hms_partition_events"),
    /** {@code /<catalog>/.hive_txns}: the HMS catalog's Hive transaction counters ({@link HiveTransactionsEntry}). */
    HIVE_TRANSACTIONS("hms_txns"),
    /** {@code /<catalog>/.hive_txns/txns}, {@code …/committed}, {@code …/compactions}: lists under the counters. */
    HIVE_TRANSACTION_LIST("hms_txn_list"),
    /** One Hive transaction, open, aborted or committed ({@link HiveTransactionEntry}). */
    HIVE_TRANSACTION("hms_txn"),
    /** One requested Hive compaction ({@link HiveCompactionEntry}). */
    HIVE_COMPACTION("hms_compaction"),
    /** {@code …/<table>/.hive_write_ids}: a table's next Hive write id ({@link HiveWriteIdsEntry}). */
    HIVE_WRITE_IDS("hms_write_ids"),
    /** A leaf under a table's {@link #HIVE_WRITE_IDS}: one allocated write id and its transaction ({@link HiveWriteIdEntry}). */
    HIVE_WRITE_ID("hms_write_id"),
    /** {@code /<catalog>/.purges}: the catalog's queue of table purges ({@link PurgeQueueEntry}). */
    PURGE_QUEUE("purge_queue"),
    /** One dropped table whose files are still to be deleted, under its catalog's {@link #PURGE_QUEUE} ({@link PurgeEntry}). */
    TABLE_PURGE("table_purge"),
    /**
     * {@code /<catalog>/.hive_events} and each of its children: a durable checkpoint of the Hive notification log's
     * id index ({@link HiveEventCheckpointEntry}).
     */
    HIVE_EVENT_CHECKPOINT("hms_event_checkpoint"),
    /** {@code /<catalog>/.hive_locks}: the HMS catalog's lock table and its next lock id ({@link HiveLocksEntry}). */
    HIVE_LOCKS("hms_locks"),
    /** One Hive lock under {@link #HIVE_LOCKS} ({@link HiveLockEntry}). */
    HIVE_LOCK("hms_lock"),
    /** {@code /.idempotency_keys}: the records of the idempotency keys whose requests committed. */
    IDEMPOTENCY_KEYS("idempotency_keys"),
    /** One key's record under {@link #IDEMPOTENCY_KEYS} ({@link IdempotencyKeyEntry}). */
    IDEMPOTENCY_KEY("idempotency_key"),
    /** {@code /.system} and its areas ({@code /.system/principals}): TreeCat's own objects, written by it only. */
    SYSTEM_AREA("system_area"),
    /** One built-in principal under {@code /.system/principals} ({@link PrincipalEntry}). */
    PRINCIPAL("principal"),
    /** {@code /.system/grants}: the grants' area and its change counter ({@link GrantsAreaEntry}). */
    GRANTS_AREA("grants_area"),
    /** One role under {@code /.system/roles} ({@link RoleEntry}); its children are its members. */
    ROLE("role"),
    /** One principal holding a role, under the role ({@link RoleMemberEntry}). */
    ROLE_MEMBER("role_member"),
    /** One grant of a privilege on an object to a role or a principal, under {@code /.system/grants} ({@link GrantEntry}). */
    GRANT("grant");

    private final String storedName;

    ObjectType(String storedName) {
        this.storedName = storedName;
    }

    /** The name stored in {@code obj_type} (and written in queries). */
    public String storedName() {
        return storedName;
    }

    public BsonString bson() {
        return new BsonString(storedName);
    }

    /** The type a stored value declares, if it declares one TreeCat's lake model knows. */
    public static Optional<ObjectType> of(BsonDocument value) {
        BsonValue type = value.get(LakeKeys.OBJ_TYPE);
        if (type == null || !type.isString()) {
            return Optional.empty();
        }
        return fromStoredName(type.asString().getValue());
    }

    public static Optional<ObjectType> fromStoredName(String name) {
        for (ObjectType type : values()) {
            if (type.storedName.equals(name)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    /** Whether {@code object} exists and is of this type. */
    public boolean isTypeOf(Optional<CatalogObject> object) {
        return object.isPresent() && isTypeOf(object.get());
    }

    public boolean isTypeOf(CatalogObject object) {
        return of(object.value()).orElse(null) == this;
    }
}
