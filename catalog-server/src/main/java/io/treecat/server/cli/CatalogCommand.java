package io.treecat.server.cli;

import io.treecat.core.model.CatalogObject;
import io.treecat.core.model.ObjectKind;
import io.treecat.core.model.ObjectPath;
import io.treecat.core.version.WriteOp;
import io.treecat.core.version.WriteSet;
import io.treecat.grpc.client.CommitSummary;
import io.treecat.grpc.client.TreeCatClient;
import io.treecat.lakehouse.model.CatalogEntry;
import io.treecat.lakehouse.storage.StorageCredentials;
import io.treecat.lakehouse.storage.StorageSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.sourceforge.argparse4j.impl.Arguments;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;
import net.sourceforge.argparse4j.inf.Subparsers;

/**
 * {@code treecat catalog add NAME --warehouse URI [--property k=v]…} and {@code treecat catalog show NAME}: a catalog
 * with its own warehouse, added while the server runs (docs/object-storage.md). It is one native commit of the
 * catalog object, with its warehouse location and storage settings; credentials only by reference (environment
 * variable names or a secret file's path, read by the server). The settings are checked here first, so a key given
 * by mistake as a property never leaves this process, and again by the server for every writer.
 */
final class CatalogCommand extends RemoteCommand {
    CatalogCommand() {
        super("catalog", "Adds a catalog with its own warehouse (an object store), or shows one");
    }

    @Override
    void configureArguments(Subparser subparser) {
        Subparsers actions = subparser.addSubparsers().dest("action").metavar("ACTION");
        Subparser add = actions.addParser("add").help("adds a catalog with its own warehouse");
        add.addArgument("name").metavar("NAME");
        add.addArgument("--warehouse")
                .dest("warehouse")
                .required(true)
                .metavar("URI")
                .help("the warehouse location: s3://bucket/path, gs://…, abfss://…, or file:/path");
        add.addArgument("--property")
                .dest("properties")
                .action(Arguments.append())
                .metavar("KEY=VALUE")
                .help("a FileIO property under Iceberg's name (s3.endpoint, s3.path-style-access, client.region, …);"
                        + " repeatable; never a key");
        add.addArgument("--credentials")
                .dest("source")
                .choices("default", "static", "assume-role")
                .setDefault("default")
                .help("where the server finds the store's credentials (default: the SDK's default chain)");
        add.addArgument("--access-key-id-env").dest("accessKeyIdEnv").metavar("VARIABLE");
        add.addArgument("--secret-access-key-env").dest("secretAccessKeyEnv").metavar("VARIABLE");
        add.addArgument("--session-token-env").dest("sessionTokenEnv").metavar("VARIABLE");
        add.addArgument("--secret-file")
                .dest("secretFile")
                .metavar("PATH")
                .help("a properties file on the server with access-key-id and secret-access-key");
        add.addArgument("--role-arn")
                .dest("roleArn")
                .metavar("ARN")
                .help("with assume-role: the role the server assumes; with any source: the role vended credentials"
                        + " come from");
        add.addArgument("--external-id").dest("externalId").metavar("ID");
        add.addArgument("--sts-endpoint")
                .dest("stsEndpoint")
                .metavar("URI")
                .help("where vended credentials are asked for (default: s3.endpoint, else AWS's regional STS)");
        add.addArgument("--vended-duration-seconds")
                .dest("vendedDurationSeconds")
                .type(Integer.class)
                .metavar("SECONDS");
        add.addArgument("--refresh-margin-seconds")
                .dest("refreshMarginSeconds")
                .type(Integer.class)
                .metavar("SECONDS");
        add.addArgument("--description").dest("description").metavar("TEXT");
        Subparser show = actions.addParser("show").help("shows a catalog's warehouse and storage settings");
        show.addArgument("name").metavar("NAME");
    }

    @Override
    void run(TreeCatClient client, Namespace namespace, Output output) {
        String name = namespace.getString("name");
        switch (namespace.getString("action")) {
            case "add" -> {
                StorageSettings settings = settings(namespace);
                // What the server checks too, before anything is sent.
                settings.checkStored();
                CommitSummary committed = client.commit(WriteSet.of(new WriteOp.Add(
                        ObjectPath.of(name),
                        ObjectKind.INNER,
                        CatalogEntry.withStorage(settings, namespace.getString("description"))
                                .encode())));
                output.record(Output.fields("catalog", name, "warehouse", settings.location(), "vid", committed.vid()));
            }
            case "show" -> {
                Optional<CatalogObject> object = client.get(ObjectPath.of(name));
                if (object.isEmpty()) {
                    throw new IllegalArgumentException("No catalog " + name);
                }
                CatalogEntry entry = CatalogEntry.decode(object.get().value());
                Map<String, Object> fields = new LinkedHashMap<>();
                fields.put("catalog", name);
                fields.put("warehouse", entry.location());
                if (entry.storage() != null) {
                    fields.put("properties", entry.storage().properties());
                    fields.put("credentials", entry.storage().credentials().references());
                }
                output.record(fields);
            }
            default -> throw new IllegalArgumentException("unknown catalog action " + namespace.getString("action"));
        }
    }

    static StorageSettings settings(Namespace namespace) {
        Map<String, String> properties = new LinkedHashMap<>();
        List<String> given = namespace.getList("properties");
        if (given != null) {
            for (String property : given) {
                int equals = property.indexOf('=');
                if (equals <= 0) {
                    throw new IllegalArgumentException("--property takes KEY=VALUE");
                }
                properties.put(property.substring(0, equals), property.substring(equals + 1));
            }
        }
        StorageCredentials credentials = new StorageCredentials(
                StorageCredentials.Source.fromConfigName(namespace.getString("source")),
                namespace.getString("accessKeyIdEnv"),
                namespace.getString("secretAccessKeyEnv"),
                namespace.getString("sessionTokenEnv"),
                namespace.getString("secretFile"),
                namespace.getString("roleArn"),
                namespace.getString("externalId"),
                namespace.getString("stsEndpoint"),
                namespace.getInt("vendedDurationSeconds"),
                namespace.getInt("refreshMarginSeconds"));
        return new StorageSettings(namespace.getString("warehouse"), properties, credentials);
    }
}
