package io.treecat.lakehouse.auth;

import static java.util.Objects.requireNonNull;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.ObjectType;
import io.treecat.lakehouse.model.PrincipalEntry;
import io.treecat.lakehouse.model.SystemAreaEntry;
import io.treecat.lakehouse.txn.LakeTransaction;
import io.treecat.lakehouse.txn.TransactionRunner;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The built-in principals, for teams without an identity provider: each a name, a client id and the bcrypt hash of a
 * secret the server made and showed once. They live in the tree, so they are versioned and travel with it:
 *
 * <pre>
 * /.system                         {@link SystemAreaEntry}
 * /.system/principals              {@link SystemAreaEntry}
 * /.system/principals/&lt;client id&gt;  {@link PrincipalEntry}: name, client id, secret hash, created, secret set
 * </pre>
 *
 * Only these operations write the area: the native API's writes there are refused
 * ({@link io.treecat.lakehouse.model.LakeObjectValidator#PROTECTED_AREAS}). Answers never carry a hash; a secret
 * appears once, in the answer of {@link #create} or {@link #rotate}.
 */
public final class BuiltInPrincipals {
    /** The names a principal may have: what a commit log, a token's subject and a URL path segment hold as is. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,127}");
    /** The names of the server's own principals, never a built-in one. */
    private static final Set<String> TAKEN = Set.of(Principal.ANONYMOUS.name(), Principal.SYSTEM.name());
    /** What a client id we made looks like (URL-safe Base64 of 16 bytes); anything else is refused unread. */
    private static final Pattern CLIENT_ID = Pattern.compile("[A-Za-z0-9_-]{22}");

    private static final int CLIENT_ID_BYTES = 16;
    private static final String DECOY_SECRET = "treecat-decoy-secret";

    private static final ObjectPath SYSTEM = ObjectPath.of(LakeKeys.SYSTEM_ID);
    private static final ObjectPath AREA = SYSTEM.child(LakeKeys.PRINCIPALS_ID);

    /** A principal as answers show it: never its secret's hash. */
    public record Info(String name, String clientId, Instant created, Instant secretSet) {
        public Info {
            requireNonNull(name, "name is null");
            requireNonNull(clientId, "clientId is null");
            requireNonNull(created, "created is null");
            requireNonNull(secretSet, "secretSet is null");
        }

        static Info of(PrincipalEntry entry) {
            return new Info(
                    entry.name(),
                    entry.clientId(),
                    Instant.ofEpochMilli(entry.created()),
                    Instant.ofEpochMilli(entry.secretSet()));
        }
    }

    /** A principal with its new secret, the one answer that carries it. */
    public record WithSecret(Info principal, String secret) {
        public WithSecret {
            requireNonNull(principal, "principal is null");
            requireNonNull(secret, "secret is null");
        }

        @Override
        public String toString() {
            return "WithSecret[principal=" + principal + ", secret=<hidden>]";
        }
    }

    private final TransactionRunner runner;
    private final SecretHasher hasher;
    private final SecureRandom random;
    private final Clock clock;
    /** Checked when a client id is unknown, so that refusing one takes as long as refusing a wrong secret. */
    private final String decoyHash;

    public BuiltInPrincipals(TransactionRunner runner, SecretHasher hasher, SecureRandom random, Clock clock) {
        this.runner = requireNonNull(runner, "runner is null");
        this.hasher = requireNonNull(hasher, "hasher is null");
        this.random = requireNonNull(random, "random is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.decoyHash = hasher.hash(DECOY_SECRET, random);
    }

    /** The area's path (for docs and tests). */
    public static ObjectPath root() {
        return AREA;
    }

    private static Access access(Principal who) {
        return Access.of(who, Action.MANAGE_PRINCIPALS, AREA);
    }

    /**
     * Creates a principal named {@code name} with a new client id and secret.
     *
     * @throws CatalogException {@code INVALID_NAME} for a name outside {@code [A-Za-z0-9][A-Za-z0-9._@-]{0,127}} or
     *     a name of the server's own; {@code NAME_ALREADY_EXISTS} when a principal has the name
     */
    public WithSecret create(Principal who, String name) {
        checkName(name);
        String secret = SecretHasher.newSecret(random);
        String hash = hasher.hash(secret, random);
        PrincipalEntry created = runner.write(access(who), txn -> {
            if (find(txn, name).isPresent()) {
                throw new CatalogException(ErrorCode.NAME_ALREADY_EXISTS, "A principal with this name exists")
                        .with("principal", name);
            }
            ensureArea(txn);
            String clientId = SecretHasher.randomText(random, CLIENT_ID_BYTES);
            PrincipalEntry entry = PrincipalEntry.of(name, clientId, hash, clock.millis());
            txn.add(AREA.child(clientId), entry);
            return entry;
        });
        return new WithSecret(Info.of(created), secret);
    }

    /** Every principal, by client id; without hashes. */
    public List<Info> list(Principal who) {
        return runner.read(
                access(who), txn -> entries(txn).stream().map(Info::of).toList());
    }

    /** The principal named {@code name}, without its hash. */
    public Optional<Info> find(Principal who, String name) {
        return runner.read(access(who), txn -> find(txn, name).map(Info::of));
    }

    /**
     * Deletes the principal named {@code name}: its secret is refused from then on. Tokens it already holds stay
     * valid until they expire (at most the token lifetime).
     *
     * @throws CatalogException {@code OBJECT_NOT_FOUND} when no principal has the name
     */
    public void delete(Principal who, String name) {
        runner.write(access(who), txn -> {
            PrincipalEntry entry = find(txn, name).orElseThrow(() -> notFound(name));
            txn.remove(AREA.child(entry.clientId()));
            return null;
        });
    }

    /**
     * Gives the principal named {@code name} a new secret; the old one is refused from then on (tokens made with it
     * stay valid until they expire).
     *
     * @throws CatalogException {@code OBJECT_NOT_FOUND} when no principal has the name
     */
    public WithSecret rotate(Principal who, String name) {
        String secret = SecretHasher.newSecret(random);
        String hash = hasher.hash(secret, random);
        PrincipalEntry rotated = runner.write(access(who), txn -> {
            PrincipalEntry entry = find(txn, name).orElseThrow(() -> notFound(name));
            PrincipalEntry updated = entry.withSecretHash(hash, clock.millis());
            txn.update(AREA.child(entry.clientId()), updated);
            return updated;
        });
        return new WithSecret(Info.of(rotated), secret);
    }

    /**
     * The principal whose client id and secret these are, or empty: an unknown id, a wrong secret and a malformed
     * one are all just empty, and take about as long, so a caller learns nothing about which ids exist.
     */
    public Optional<Principal> authenticate(String clientId, String secret) {
        if (clientId == null || secret == null || !CLIENT_ID.matcher(clientId).matches()) {
            SecretHasher.matches(decoyHash, DECOY_SECRET + "!");
            return Optional.empty();
        }
        Optional<PrincipalEntry> entry = runner.read(
                Access.of(Principal.SYSTEM, Action.AUTHENTICATE, AREA),
                txn -> txn.read(AREA.child(clientId))
                        .filter(ObjectType.PRINCIPAL::isTypeOf)
                        .map(object -> PrincipalEntry.decode(object.value())));
        if (entry.isEmpty()) {
            SecretHasher.matches(decoyHash, DECOY_SECRET + "!");
            return Optional.empty();
        }
        return SecretHasher.matches(entry.get().secretHash(), secret)
                ? Optional.of(new Principal(entry.get().name()))
                : Optional.empty();
    }

    /** Whether a principal named {@code name} exists now (a token's subject is checked against it). */
    public boolean exists(String name) {
        return runner.read(Access.of(Principal.SYSTEM, Action.AUTHENTICATE, AREA), txn -> find(txn, name))
                .isPresent();
    }

    private static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new CatalogException(
                            ErrorCode.INVALID_NAME,
                            "Invalid principal name: it must be 1 to 128 letters, digits and . _ @ -, starting with a"
                                    + " letter or digit")
                    .with("kind", "principal");
        }
        if (TAKEN.contains(name)) {
            throw new CatalogException(ErrorCode.INVALID_NAME, "Invalid principal name: it is the server's own")
                    .with("kind", "principal")
                    .with("principal", name);
        }
    }

    private static CatalogException notFound(String name) {
        return new CatalogException(ErrorCode.OBJECT_NOT_FOUND, "No principal with this name").with("principal", name);
    }

    private static void ensureArea(LakeTransaction txn) {
        if (!ObjectType.SYSTEM_AREA.isTypeOf(txn.read(SYSTEM))) {
            txn.add(SYSTEM, new SystemAreaEntry());
        }
        if (!ObjectType.SYSTEM_AREA.isTypeOf(txn.read(AREA))) {
            txn.add(AREA, new SystemAreaEntry());
        }
    }

    private static List<PrincipalEntry> entries(LakeTransaction txn) {
        if (!ObjectType.SYSTEM_AREA.isTypeOf(txn.read(AREA))) {
            return List.of();
        }
        return txn.children(AREA, ObjectType.PRINCIPAL).stream()
                .map(CatalogObject::value)
                .map(PrincipalEntry::decode)
                .toList();
    }

    /** Reads every principal: the name decides, and a concurrent create of the same name conflicts with this read. */
    private static Optional<PrincipalEntry> find(LakeTransaction txn, String name) {
        return entries(txn).stream().filter(entry -> entry.name().equals(name)).findFirst();
    }
}
