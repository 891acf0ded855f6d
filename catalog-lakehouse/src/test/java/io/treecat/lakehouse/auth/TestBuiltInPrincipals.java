package io.treecat.lakehouse.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.core.error.CatalogException;
import io.treecat.core.error.ErrorCode;
import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.service.ReadPoint;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.lakehouse.LakeTestStores;
import io.treecat.lakehouse.model.LakeKeys;
import io.treecat.lakehouse.model.PrincipalEntry;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.List;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Built-in principals on a real tree: created, listed without hashes, rotated, deleted, authenticated. */
class TestBuiltInPrincipals {
    /** bcrypt's lowest cost: the rules are the same, the test is fast. */
    private static final SecretHasher FAST = new SecretHasher(4);

    private static final Principal ADMIN = new Principal("admin");

    @TempDir
    Path directory;

    private LakeTestStores.Lake lake;
    private BuiltInPrincipals principals;

    @BeforeEach
    void open() {
        lake = LakeTestStores.lake(directory);
        principals = new BuiltInPrincipals(lake.runner(), FAST, new SecureRandom(), Clock.systemUTC());
    }

    @AfterEach
    void close() {
        lake.close();
    }

    @Test
    void aCreatedPrincipalAuthenticatesWithItsSecretOnly() {
        BuiltInPrincipals.WithSecret created = principals.create(ADMIN, "etl-team");

        assertThat(created.secret()).hasSize(43).matches("[A-Za-z0-9_-]+");
        assertThat(created.principal().clientId()).hasSize(22);
        assertThat(created.toString()).doesNotContain(created.secret());
        assertThat(principals.authenticate(created.principal().clientId(), created.secret()))
                .contains(new Principal("etl-team"));
        assertThat(principals.authenticate(created.principal().clientId(), created.secret() + "x"))
                .isEmpty();
        assertThat(principals.authenticate(created.principal().clientId(), "")).isEmpty();
        assertThat(principals.authenticate("AAAAAAAAAAAAAAAAAAAAAA", created.secret()))
                .isEmpty();
        assertThat(principals.authenticate("../../x", created.secret())).isEmpty();
        assertThat(principals.authenticate(null, null)).isEmpty();
    }

    @Test
    void everyRefusalCostsOneBcryptCheckSoTimeDoesNotTellWhichIdsExist() {
        // A cost where one check takes milliseconds, so a refusal that skips bcrypt stands out.
        BuiltInPrincipals slow =
                new BuiltInPrincipals(lake.runner(), new SecretHasher(8), new SecureRandom(), Clock.systemUTC());
        String known = slow.create(ADMIN, "timed").principal().clientId();
        String unknown = "AAAAAAAAAAAAAAAAAAAAAA";
        String tooLong = "x".repeat(100); // longer than bcrypt reads: once refused without a check, for known ids only

        long wrongSecret = fastest(() -> slow.authenticate(known, "wrong"));
        for (String[] attempt :
                new String[][] {{known, tooLong}, {known, ""}, {unknown, "wrong"}, {unknown, tooLong}}) {
            assertThat(fastest(() -> slow.authenticate(attempt[0], attempt[1])))
                    .as(
                            "%s with a %d-character secret",
                            attempt[0].equals(known) ? "known id" : "unknown id", attempt[1].length())
                    .isGreaterThan(wrongSecret / 3);
        }
    }

    /** The fastest of five runs, in nanoseconds: the cost of the work itself, whatever else the machine does. */
    private static long fastest(Runnable work) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            work.run();
            best = Math.min(best, System.nanoTime() - start);
        }
        return best;
    }

    @Test
    void theTreeHoldsASlowSaltedHashNeverTheSecret() {
        BuiltInPrincipals.WithSecret created = principals.create(ADMIN, "etl");
        CatalogObject stored = lake.service()
                .get(BuiltInPrincipals.root().child(created.principal().clientId()), ReadPoint.LATEST)
                .orElseThrow();

        assertThat(stored.value().toJson()).doesNotContain(created.secret());
        PrincipalEntry entry = PrincipalEntry.decode(stored.value());
        assertThat(entry.secretHash()).startsWith("$2y$04$");
        assertThat(entry.toString()).doesNotContain(entry.secretHash());
        // Two principals never share a hash, even for one secret: each has its own salt.
        assertThat(FAST.hash("same", new SecureRandom())).isNotEqualTo(FAST.hash("same", new SecureRandom()));
    }

    @Test
    void listingShowsNamesAndIdsNeverHashes() {
        principals.create(ADMIN, "a");
        principals.create(ADMIN, "b");

        List<BuiltInPrincipals.Info> listed = principals.list(ADMIN);

        assertThat(listed).extracting(BuiltInPrincipals.Info::name).containsExactlyInAnyOrder("a", "b");
        assertThat(listed.toString()).doesNotContain("$2y$");
    }

    @Test
    void rotatingReplacesTheSecret() {
        BuiltInPrincipals.WithSecret created = principals.create(ADMIN, "etl");
        BuiltInPrincipals.WithSecret rotated = principals.rotate(ADMIN, "etl");

        assertThat(rotated.principal().clientId()).isEqualTo(created.principal().clientId());
        assertThat(rotated.secret()).isNotEqualTo(created.secret());
        assertThat(principals.authenticate(created.principal().clientId(), created.secret()))
                .isEmpty();
        assertThat(principals.authenticate(created.principal().clientId(), rotated.secret()))
                .contains(new Principal("etl"));
    }

    @Test
    void aDeletedPrincipalNoLongerAuthenticates() {
        BuiltInPrincipals.WithSecret created = principals.create(ADMIN, "etl");
        principals.delete(ADMIN, "etl");

        assertThat(principals.authenticate(created.principal().clientId(), created.secret()))
                .isEmpty();
        assertThat(principals.list(ADMIN)).isEmpty();
        assertThat(principals.exists("etl")).isFalse();
        assertThatThrownBy(() -> principals.delete(ADMIN, "etl"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("No principal with this name")
                .satisfies(e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.OBJECT_NOT_FOUND));
        assertThatThrownBy(() -> principals.rotate(ADMIN, "etl")).hasMessage("No principal with this name");
    }

    @Test
    void namesAreUniqueAndChecked() {
        principals.create(ADMIN, "etl");
        long vid = lake.service().lastVid();

        assertThatThrownBy(() -> principals.create(ADMIN, "etl"))
                .isInstanceOf(CatalogException.class)
                .hasMessage("A principal with this name exists");
        assertThatThrownBy(() -> principals.create(ADMIN, "a b"))
                .hasMessageStartingWith("Invalid principal name: it must be 1 to 128 letters");
        assertThatThrownBy(() -> principals.create(ADMIN, "")).hasMessageStartingWith("Invalid principal name");
        assertThatThrownBy(() -> principals.create(ADMIN, "x".repeat(129)))
                .hasMessageStartingWith("Invalid principal name");
        assertThatThrownBy(() -> principals.create(ADMIN, "anonymous"))
                .hasMessage("Invalid principal name: it is the server's own");
        assertThat(lake.service().lastVid()).isEqualTo(vid);
    }

    @Test
    void nativeWritesCannotTouchTheSystemArea() {
        BuiltInPrincipals.WithSecret created = principals.create(ADMIN, "etl");
        ObjectPath stored = BuiltInPrincipals.root().child(created.principal().clientId());
        long vid = lake.service().lastVid();
        BsonDocument forged = PrincipalEntry.of("root", "AAAAAAAAAAAAAAAAAAAAAA", FAST.hash("x", new SecureRandom()), 1)
                .encode();

        for (WriteOp write : List.of(
                new WriteOp.Add(BuiltInPrincipals.root().child("AAAAAAAAAAAAAAAAAAAAAA"), ObjectKind.INNER, forged),
                new WriteOp.Update(stored, ObjectKind.INNER, forged),
                new WriteOp.Merge(stored, new BsonDocument(LakeKeys.PRINCIPAL_NAME, new BsonString("root"))),
                new WriteOp.Remove(stored),
                new WriteOp.Remove(ObjectPath.of(LakeKeys.SYSTEM_ID)),
                new WriteOp.Add(ObjectPath.of(LakeKeys.IDEMPOTENCY_KEYS_ID), ObjectKind.INNER, new BsonDocument()),
                new WriteOp.Clone(ObjectPath.of(LakeKeys.SYSTEM_ID), ObjectPath.of("copy"), vid))) {
            assertThatThrownBy(() -> lake.service().commit(new WriteSet(List.of(write))))
                    .as("%s", write)
                    .isInstanceOf(CatalogException.class)
                    .hasMessageStartingWith("The path is in an area only TreeCat itself writes")
                    .satisfies(e -> assertThat(((CatalogException) e).code()).isEqualTo(ErrorCode.INVALID_PATH));
        }
        assertThat(lake.service().lastVid()).isEqualTo(vid);
        assertThat(principals.authenticate(created.principal().clientId(), created.secret()))
                .contains(new Principal("etl"));
        assertThat(lake.service().get(ObjectPath.of("copy"), ReadPoint.LATEST)).isEmpty();
    }
}
