/**
 * The lake model every adapter shares (DESIGN §1, docs/architecture.md): catalogs, namespaces,
 * tables, views, partitions and files as typed records, each with one codec to and from its tree
 * object ({@link io.treecat.lakehouse.model}); the one transaction runner every adapter's writes go
 * through ({@link io.treecat.lakehouse.txn}); where a catalog's files live
 * ({@link io.treecat.lakehouse.storage}); who may do what ({@link io.treecat.lakehouse.auth}); and the durable
 * records of idempotency keys, written in the commit of the request that used one
 * ({@link io.treecat.lakehouse.idempotency}).
 *
 * <p>Adapters translate their wire formats into calls of this layer and back; they never spell an
 * object key and never build a write of a lake object themselves.
 */
package io.treecat.lakehouse;
