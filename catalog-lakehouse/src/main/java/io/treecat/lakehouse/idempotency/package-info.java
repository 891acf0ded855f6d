/**
 * Idempotency keys that outlive a restart: each committed request's key record, written in that request's own
 * commit through the runner's attachment, looked up by the adapter when a repeat arrives, and collected once
 * expired (docs/iceberg-rest.md, "Idempotency keys").
 */
package io.treecat.lakehouse.idempotency;
