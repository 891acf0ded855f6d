package io.treecat.e2e.trino;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which JDK Trino gets: a machine without Java 24+ must fail the end-to-end tests with a message, never skip them. */
class TestTrinoJavaHome {
    @TempDir
    Path directory;

    /** A fake JDK: what the finder reads, a release file and an executable bin/java. */
    private Path jdk(String name, String version) throws Exception {
        Path home = Files.createDirectories(directory.resolve("jvm").resolve(name));
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + version + "\"\n");
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/bin/sh\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return home;
    }

    @Test
    void prefersTheDefaultThenTheNewestJdk24OrLater() throws Exception {
        Path jvm = directory.resolve("jvm");
        jdk("jdk-17", "17.0.15");
        Path jdk24 = jdk("jdk-24", "24.0.1");
        Path jdk25 = jdk("jdk-25", "25.0.3");
        assertThat(TrinoServer.findJavaHome("", directory.resolve("absent"), jvm))
                .isEqualTo(jdk25);
        assertThat(TrinoServer.findJavaHome("", jdk24, jvm)).isEqualTo(jdk24);
        assertThat(TrinoServer.findJavaHome(" " + jdk24 + " ", directory.resolve("absent"), jvm))
                .isEqualTo(jdk24);
    }

    @Test
    void failsWithAMessageWithoutAJdk24() throws Exception {
        Path jvm = directory.resolve("jvm");
        Path jdk17 = jdk("jdk-17", "17.0.15");
        assertThatThrownBy(() -> TrinoServer.findJavaHome("", jdk17, jvm))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Trino 476 needs a JDK 24 or newer and none was found")
                .hasMessageContaining("-Dtrino.java.home=");
        assertThatThrownBy(() -> TrinoServer.findJavaHome(jdk17.toString(), jdk17, jvm))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("trino.java.home=" + jdk17 + " is not a JDK 24 or newer (its release file says Java 17)");
        assertThatThrownBy(() ->
                        TrinoServer.findJavaHome(directory.resolve("nothing").toString(), jdk17, jvm))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("(its release file says nothing)");
    }
}
