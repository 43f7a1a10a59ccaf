package dev.paddock.workspace;

import dev.paddock.core.PaddockException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A workspace directory next to an "outside" directory holding a canary file that must never change. */
final class WorkspaceFixture {
    static final String CANARY = "canary: must never be read or changed";

    final Path root;
    final Path outside;
    final Path canary;
    final HostDirWorkspace workspace;

    WorkspaceFixture(Path base) throws IOException {
        root = Files.createDirectories(base.resolve("workspace"));
        outside = Files.createDirectories(base.resolve("outside"));
        canary = Files.writeString(outside.resolve("canary"), CANARY);
        workspace = new HostDirWorkspace(root, -1, -1);
    }

    static InputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    String readString(String path) {
        try (InputStream in = workspace.read(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The outside directory still holds exactly the canary, unchanged. */
    void assertOutsideUntouched() throws IOException {
        assertThat(Files.readString(canary)).isEqualTo(CANARY);
        try (Stream<Path> files = Files.walk(outside)) {
            assertThat(files.filter(p -> !p.equals(outside))).containsExactly(canary);
        }
    }

    static void assertRefused(ThrowingCallable call, String code) {
        assertThatThrownBy(call).isInstanceOf(PaddockException.class)
                .satisfies(e -> assertThat(((PaddockException) e).code()).isEqualTo(code));
    }
}
