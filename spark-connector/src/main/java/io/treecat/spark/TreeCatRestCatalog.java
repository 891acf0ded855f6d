package io.treecat.spark;

import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.RESTCatalog;

/**
 * Iceberg's REST catalog, whose tables plan each scan from the tree or from the manifests
 * ({@link TreeCatTable}). {@link TreeCatCatalog} builds it in server planning mode, so that Iceberg's client
 * loads each table as its {@code RESTTable} (scans planned by {@code POST …/plan}); a table the server
 * answers with client planning ({@code scan-planning-mode=client} in its config, which wins) stays as loaded.
 */
public class TreeCatRestCatalog extends RESTCatalog {
    /** Iceberg's REST table for server-side planning; package-private in iceberg-core, so named. */
    private static final String REST_TABLE = "org.apache.iceberg.rest.RESTTable";

    private PlanningMode mode = PlanningMode.AUTO;

    /** Iceberg's HTTP client, reading the answers of scan planning with TreeCat's faster decoder. */
    public TreeCatRestCatalog() {
        super(PlanningRestClient::build);
    }

    @Override
    public void initialize(String name, Map<String, String> props) {
        this.mode = PlanningMode.fromOption(name, props.get(PlanningMode.OPTION));
        super.initialize(name, props);
    }

    @Override
    public Table loadTable(TableIdentifier ident) {
        Table table = super.loadTable(ident);
        if (table instanceof BaseTable base && table.getClass().getName().equals(REST_TABLE)) {
            return new TreeCatTable(base, mode);
        }
        return table;
    }
}
