package dev.paddock.workspace;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.FileEntry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A host directory shown inside the sandbox under another root than /workspace (the session outputs). */
class VirtualRootTest {
    static final String OUTPUTS = "/mnt/session/outputs";

    @TempDir Path base;

    @Test
    void pathsAreTakenAndShownUnderTheVirtualRoot() throws IOException {
        Path dir = Files.createDirectories(base.resolve("outputs"));
        Files.writeString(dir.resolve("report.txt"), "done");
        HostDirWorkspace outputs = new HostDirWorkspace(dir, OUTPUTS, -1, -1);

        assertThat(outputs.list(OUTPUTS)).extracting(FileEntry::path).containsExactly(OUTPUTS + "/report.txt");
        assertThat(new String(outputs.read(OUTPUTS + "/report.txt").readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("done");
        assertThat(outputs.stat("report.txt").path()).isEqualTo(OUTPUTS + "/report.txt");
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        outputs.exportTar(OUTPUTS, tar);
        assertThat(tar.size()).isGreaterThan(0);
    }

    @Test
    void workspacePathsAndEscapesAreRefusedNamingTheVirtualRoot() throws IOException {
        Path dir = Files.createDirectories(base.resolve("outputs"));
        Files.writeString(base.resolve("secret"), "x");
        Files.createSymbolicLink(dir.resolve("up"), Path.of("/workspace/../secret"));
        HostDirWorkspace outputs = new HostDirWorkspace(dir, OUTPUTS, -1, -1);

        assertThatThrownBy(() -> outputs.read("/workspace/report.txt"))
                .isInstanceOfSatisfying(PaddockException.class, e -> assertThat(e.code()).isEqualTo("path_outside_workspace"))
                .hasMessageContaining(OUTPUTS);
        assertThatThrownBy(() -> outputs.read("../secret")).isInstanceOf(PaddockException.class);
        assertThatThrownBy(() -> outputs.read("up")).isInstanceOfSatisfying(PaddockException.class,
                e -> assertThat(e.code()).isEqualTo("path_outside_workspace"));
    }

    @Test
    void theOldConstructorStillMeansWorkspace() throws IOException {
        Path dir = Files.createDirectories(base.resolve("ws"));
        Files.writeString(dir.resolve("a"), "1");
        assertThat(new HostDirWorkspace(dir, -1, -1).stat("/workspace/a").path()).isEqualTo("/workspace/a");
    }

    @Test
    void aRelativeVirtualRootIsRefused() {
        assertThatThrownBy(() -> new HostDirWorkspace(base, "mnt/outputs", -1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
