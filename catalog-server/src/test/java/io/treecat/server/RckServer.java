package io.treecat.server;

import io.treecat.lakehouse.storage.LocalFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Starts a TreeCat server for Iceberg's REST Compatibility Kit, once per test JVM, before the kit's
 * classes initialize their client. The kit builds its catalog properties from {@code CATALOG_*}
 * environment variables and then every system property, so {@code uri} and {@code io-impl} set
 * here reach it. Does nothing unless {@code treecat.rck=true} (the surefire execution {@code rck}).
 */
public final class RckServer implements LauncherSessionListener {
    private TreeCatTestServer server;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        if (!Boolean.getBoolean("treecat.rck")) {
            return;
        }
        try {
            Path directory = Files.createTempDirectory("treecat-rck");
            server = new TreeCatTestServer(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot start TreeCat for the RCK", e);
        }
        System.setProperty("uri", "http://127.0.0.1:" + server.port() + "/");
        System.setProperty("io-impl", LocalFileIO.class.getName());
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        if (server != null) {
            server.close();
            server = null;
        }
    }
}
