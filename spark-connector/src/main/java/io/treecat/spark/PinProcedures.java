package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.Iterator;
import java.util.Locale;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The SQL way to read a consistent lake: {@code CALL <catalog>.system.pin_vid()} takes the newest vid once
 * and makes every later read of the session's catalog use it (every table at that one version), and
 * {@code pin_vid(vid => 42)} pins a given vid; {@code CALL <catalog>.system.unpin()} returns to the live
 * catalog. Both answer one row: the vid the catalog reads at from then on (for {@code unpin}, the newest
 * when it ran).
 */
final class PinProcedures {
    static final String PIN_VID = "pin_vid";
    static final String UNPIN = "unpin";

    private static final StructType OUTPUT = new StructType().add("vid", DataTypes.LongType, false);

    private PinProcedures() {}

    /** TreeCat's procedure of that name, or null when it is not one of them. */
    static UnboundProcedure load(TreeCatCatalog catalog, String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case PIN_VID -> new Pin(catalog);
            case UNPIN -> new Unpin(catalog);
            default -> null;
        };
    }

    private abstract static class Base implements UnboundProcedure, BoundProcedure {
        final TreeCatCatalog catalog;

        Base(TreeCatCatalog catalog) {
            this.catalog = requireNonNull(catalog, "catalog is null");
        }

        @Override
        public BoundProcedure bind(StructType inputType) {
            return this;
        }

        @Override
        public boolean isDeterministic() {
            return false;
        }

        static Iterator<Scan> answer(long vid) {
            InternalRow row = new GenericInternalRow(new Object[] {vid});
            return Collections.<Scan>singletonList(new Answer(row)).iterator();
        }
    }

    private static final class Pin extends Base {
        private static final ProcedureParameter[] PARAMETERS = {
            ProcedureParameter.in("vid", DataTypes.LongType)
                    .defaultValue("NULL")
                    .build()
        };

        Pin(TreeCatCatalog catalog) {
            super(catalog);
        }

        @Override
        public String name() {
            return PIN_VID;
        }

        @Override
        public String description() {
            return "Pins the catalog to one vid (the newest without an argument) for every later read of the session";
        }

        @Override
        public ProcedureParameter[] parameters() {
            return PARAMETERS;
        }

        @Override
        public Iterator<Scan> call(InternalRow input) {
            CatalogVersion version =
                    input.isNullAt(0) ? new CatalogVersion.Now() : new CatalogVersion.Vid(input.getLong(0));
            return answer(catalog.pin(version));
        }
    }

    private static final class Unpin extends Base {
        Unpin(TreeCatCatalog catalog) {
            super(catalog);
        }

        @Override
        public String name() {
            return UNPIN;
        }

        @Override
        public String description() {
            return "Returns the catalog to the live (newest, writable) version";
        }

        @Override
        public ProcedureParameter[] parameters() {
            return new ProcedureParameter[0];
        }

        @Override
        public Iterator<Scan> call(InternalRow input) {
            return answer(catalog.pin(CatalogVersion.LATEST));
        }
    }

    /** One local result row. */
    private record Answer(InternalRow row) implements LocalScan {
        @Override
        public InternalRow[] rows() {
            return new InternalRow[] {row};
        }

        @Override
        public StructType readSchema() {
            return OUTPUT;
        }
    }
}
