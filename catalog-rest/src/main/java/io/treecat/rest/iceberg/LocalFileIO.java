package io.treecat.rest.iceberg;

/**
 * The name Iceberg clients have configured as {@code io-impl} for a local warehouse without Hadoop
 * (docs/iceberg-rest.md), kept so that configuration goes on working: the class itself is
 * {@link io.treecat.lakehouse.storage.LocalFileIO}.
 */
public final class LocalFileIO extends io.treecat.lakehouse.storage.LocalFileIO {}
