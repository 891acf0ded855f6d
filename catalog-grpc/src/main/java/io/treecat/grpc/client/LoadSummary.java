package io.treecat.grpc.client;

/** What a bulk load did: every record counted here is durable. */
public record LoadSummary(long records, long commits, long firstVid, long lastVid, double recordsPerSecond) {}
