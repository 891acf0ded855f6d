/**
 * The Iceberg REST catalog on TreeCat's tree (DESIGN §6): JAX-RS resources under {@code /v1},
 * Iceberg's own request/response classes and parsers, and Iceberg's ErrorModel for every failure
 * under that root. Every commit, of one table or of many, is one TreeCat read-write transaction.
 */
package io.treecat.rest.iceberg;
