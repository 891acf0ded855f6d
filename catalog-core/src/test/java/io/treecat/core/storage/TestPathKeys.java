package io.treecat.core.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.treecat.core.model.IdOrder;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.model.RandomPaths;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TestPathKeys {
    @Test
    void pathKeysRoundTrip() {
        Random random = new Random(1);
        for (int i = 0; i < 5000; i++) {
            ObjectPath path = RandomPaths.path(random, random.nextInt(6));
            assertThat(PathKeys.decodePath(PathKeys.pathKey(path))).isEqualTo(path);
        }
    }

    @Test
    void idEncodingRoundTrips() {
        Random random = new Random(2);
        for (int i = 0; i < 5000; i++) {
            String id = RandomPaths.id(random);
            byte[] encoded = IdOrder.encode(id);
            assertThat(IdOrder.decode(encoded, 0)).isEqualTo(id);
            assertThat(IdOrder.encodedLength(encoded, 0)).isEqualTo(encoded.length);
        }
    }

    @Test
    void byteOrderEqualsLogicalOrder() {
        Random random = new Random(3);
        for (int i = 0; i < 20000; i++) {
            ObjectPath a = RandomPaths.path(random, random.nextInt(4));
            ObjectPath b = random.nextInt(4) == 0
                    ? a.isRoot() ? a : a.parent().child(RandomPaths.id(random))
                    : RandomPaths.path(random, random.nextInt(4));
            int logical = Integer.signum(a.compareTo(b));
            int bytes = Integer.signum(Arrays.compareUnsigned(PathKeys.pathKey(a), PathKeys.pathKey(b)));
            assertThat(bytes).as("%s vs %s", a, b).isEqualTo(logical);
        }
    }

    @Test
    void childrenOfOneParentAreExactlyTheKeysUnderItsPrefix() {
        Random random = new Random(4);
        for (int i = 0; i < 20000; i++) {
            ObjectPath parent = RandomPaths.path(random, random.nextInt(3));
            ObjectPath other = RandomPaths.path(random, 1 + random.nextInt(4));
            byte[] prefix = PathKeys.childrenPrefix(parent);
            byte[] key = PathKeys.pathKey(other);
            boolean isChild = !other.isRoot() && other.parent().equals(parent);
            boolean inRange = Arrays.compareUnsigned(key, prefix) >= 0
                    && Arrays.compareUnsigned(key, PathKeys.prefixEnd(prefix)) < 0;
            assertThat(inRange).as("%s under %s", other, parent).isEqualTo(isChild);
            byte[] versioned = PathKeys.versionedKey(key, random.nextInt(1000));
            boolean versionInRange = Arrays.compareUnsigned(versioned, prefix) >= 0
                    && Arrays.compareUnsigned(versioned, PathKeys.prefixEnd(prefix)) < 0;
            assertThat(versionInRange).isEqualTo(isChild);
        }
    }

    @Test
    void aNulInsideAnIdDoesNotMixTwoParentsChildren() {
        // "a" and "a\0" are different parents; with a naive 0x00 terminator the children of "a" would
        // include those of "a\0".
        byte[] prefix = PathKeys.childrenPrefix(ObjectPath.of("a"));
        byte[] stranger = PathKeys.pathKey(ObjectPath.of("a\u0000", "x"));
        assertThat(Arrays.compareUnsigned(stranger, PathKeys.prefixEnd(prefix)) >= 0
                        || Arrays.compareUnsigned(stranger, prefix) < 0)
                .isTrue();
    }

    @Test
    void versionedKeysOrderNewestFirst() {
        byte[] key = PathKeys.pathKey(ObjectPath.of("t"));
        assertThat(Arrays.compareUnsigned(PathKeys.versionedKey(key, 9), PathKeys.versionedKey(key, 3)))
                .isNegative();
        assertThat(PathKeys.vidOfVersionedKey(PathKeys.versionedKey(key, 42))).isEqualTo(42);
        assertThat(PathKeys.isVersionOf(PathKeys.versionedKey(key, 42), key)).isTrue();
    }
}
