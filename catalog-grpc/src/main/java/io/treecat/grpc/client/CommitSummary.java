package io.treecat.grpc.client;

/**
 * What a commit did, as the server reports it.
 *
 * @param vid the commit's version; for a transaction without writes, its read vid
 * @param changeCount how many objects changed
 */
public record CommitSummary(long vid, int changeCount) {}
