package io.treecat.server;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.auth.Access;
import io.treecat.lakehouse.auth.Action;
import io.treecat.lakehouse.auth.Authorizer;
import io.treecat.replication.ReplicaNode;
import io.treecat.rest.auth.ChecksItsOwnAccess;
import io.treecat.rest.auth.RequestPrincipals;
import io.treecat.rest.nativeapi.NativeApi;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The members of a replicated group, on the native API (docs/replication.md, "Membership"), for {@code treecat
 * replication}:
 * <ul>
 *   <li>{@code GET /treecat/v1/replication}: this node, the leader it knows, the term, its log indexes, on the
 *       leader each follower's lag (entries it lacks), and the members;</li>
 *   <li>{@code POST /treecat/v1/replication/members} {@code {"id": "n4", "address": "host:9190"}}: adds a running
 *       node, once it caught up;</li>
 *   <li>{@code DELETE /treecat/v1/replication/members/{id}}: removes one.</li>
 * </ul>
 * Any node takes them (the change goes to the leader). Each needs {@code ALL} on the root ({@link
 * Action#MANAGE_REPLICATION}). A single node answers {@code NOT_REPLICATED}.
 */
@Path(NativeApi.ROOT + "/replication")
@Produces(MediaType.APPLICATION_JSON)
public final class ReplicationResource implements ChecksItsOwnAccess {
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
    private static final Pattern ADDRESS = Pattern.compile("[^\\s:=/]{1,253}:[0-9]{1,5}");

    private final Supplier<Optional<ReplicaNode>> replica;
    private final Authorizer authorizer;
    private final Duration changeTimeout;

    /**
     * @param changeTimeout how long a membership change may take, the new node's catch-up included
     */
    public ReplicationResource(Supplier<Optional<ReplicaNode>> replica, Authorizer authorizer, Duration changeTimeout) {
        this.replica = requireNonNull(replica, "replica is null");
        this.authorizer = requireNonNull(authorizer, "authorizer is null");
        this.changeTimeout = requireNonNull(changeTimeout, "changeTimeout is null");
    }

    public record Member(String id, String address) {}

    public record Status(
            String node,
            Optional<String> leader,
            long term,
            @JsonProperty("commit_index") long commitIndex,
            @JsonProperty("applied_index") long appliedIndex,
            @JsonProperty("log_start_index") long logStartIndex,
            @JsonProperty("checkpoints_installed") long checkpointsInstalled,
            @JsonProperty("follower_lag") Map<String, Long> followerLag,
            List<Member> members) {}

    public record Members(List<Member> members) {}

    @GET
    public Status status() {
        ReplicaNode node = node("status");
        return new Status(
                node.id(),
                node.leader(),
                node.term(),
                node.commitIndex(),
                node.appliedIndex(),
                node.logStartIndex(),
                node.checkpointsInstalled(),
                node.followerLags(),
                members(node.members()));
    }

    @POST
    @Path("members")
    @Consumes(MediaType.APPLICATION_JSON)
    public Members add(Member member) {
        ReplicaNode node = node("add a member");
        if (member == null || member.id() == null || !ID.matcher(member.id()).matches()) {
            throw invalid("id", "1-64 letters, digits, '_', '.' or '-'");
        }
        if (member.address() == null || !ADDRESS.matcher(member.address()).matches()) {
            throw invalid("address", "host:port, the port the node's Raft transport listens on");
        }
        return new Members(members(node.addMember(new ReplicaNode.Peer(member.id(), member.address()), changeTimeout)));
    }

    @DELETE
    @Path("members/{id}")
    public Members remove(@PathParam("id") String id) {
        ReplicaNode node = node("remove a member");
        if (!ID.matcher(id).matches()) {
            throw invalid("id", "1-64 letters, digits, '_', '.' or '-'");
        }
        return new Members(members(node.removeMember(id, changeTimeout)));
    }

    private ReplicaNode node(String operation) {
        authorizer.check(Access.of(RequestPrincipals.current(), Action.MANAGE_REPLICATION, ObjectPath.ROOT));
        return replica.get()
                .orElseThrow(() -> new CatalogException(
                                ErrorCode.NOT_REPLICATED,
                                "This server is a single node (replication.peers is empty): it has no group to "
                                        + operation + " of")
                        .with("operation", "replication " + operation));
    }

    private static CatalogException invalid(String field, String expected) {
        return new CatalogException(ErrorCode.INVALID_REQUEST, "Missing or malformed field")
                .with("field", field)
                .with("expected", expected);
    }

    private static List<Member> members(List<ReplicaNode.Peer> peers) {
        return peers.stream().map(peer -> new Member(peer.id(), peer.address())).toList();
    }
}
