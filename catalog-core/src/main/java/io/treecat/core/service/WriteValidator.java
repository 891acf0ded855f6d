package io.treecat.core.service;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteSet;
import java.util.Optional;
import java.util.function.Function;

/**
 * A check every write set passes before it is committed, whichever interface sent it: the layer above
 * the core (catalog-lakehouse) installs one so that no commit leaves an object its interfaces cannot
 * read. The core itself knows no object schema; without a validator it accepts any well-formed write.
 */
@FunctionalInterface
public interface WriteValidator {
    /** Accepts everything. */
    WriteValidator NONE = (writes, current) -> {};

    /**
     * Returns if {@code writes} may be committed, throws a {@code CatalogException} naming the path and
     * field otherwise. {@code current} reads the newest committed state (outside any transaction).
     */
    void validate(WriteSet writes, Function<ObjectPath, Optional<CatalogObject>> current);
}
