package io.treecat.lakehouse.model;

import org.bson.BsonDocument;

/**
 * A lake object's record: what an adapter hands the lakehouse to store. Only these go into the tree
 * through {@link io.treecat.lakehouse.txn.LakeTransaction#add} and {@code update}, so every stored
 * value was made by its codec.
 */
public sealed interface LakeObject
        permits CatalogEntry,
                NamespaceEntry,
                TableEntry,
                ViewEntry,
                PartitionEntry,
                FunctionEntry,
                FunctionContainerEntry,
                PartitionEventsEntry,
                HiveTransactionsEntry,
                HiveTransactionListEntry,
                HiveTransactionEntry,
                HiveCompactionEntry,
                HiveWriteIdsEntry,
                HiveWriteIdEntry,
                PurgeQueueEntry,
                PurgeEntry,
                HiveEventCheckpointEntry,
                HiveLocksEntry,
                HiveLockEntry,
                IdempotencyKeysEntry,
                IdempotencyKeyEntry,
                SystemAreaEntry,
                PrincipalEntry,
                GrantsAreaEntry,
                RoleEntry,
                RoleMemberEntry,
                GrantEntry {
    /** The stored value. */
    BsonDocument encode();
}
