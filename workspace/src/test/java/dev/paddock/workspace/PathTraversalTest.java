package dev.paddock.workspace;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static dev.paddock.workspace.WorkspaceFixture.assertRefused;
import static dev.paddock.workspace.WorkspaceFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/** Every way out of /workspace is refused for every operation, and nothing outside is read or written. */
class PathTraversalTest {
    @TempDir Path base;
    WorkspaceFixture fx;
    HostDirWorkspace ws;

    @BeforeEach
    void setUp() throws IOException {
        fx = new WorkspaceFixture(base);
        ws = fx.workspace;
        Files.createDirectories(fx.root.resolve("sub/deeper"));
        Files.createSymbolicLink(fx.root.resolve("passwd"), Path.of("/etc/passwd"));
        Files.createSymbolicLink(fx.root.resolve("canary"), fx.canary); // absolute host path = outside in the sandbox view
        Files.createSymbolicLink(fx.root.resolve("rel-canary"), Path.of("../outside/canary"));
        Files.createSymbolicLink(fx.root.resolve("slash"), Path.of("/"));
        Files.createSymbolicLink(fx.root.resolve("out"), fx.outside);
        Files.createSymbolicLink(fx.root.resolve("sub/deeper/up"), Path.of("../../.."));
        Files.createSymbolicLink(fx.root.resolve("chain1"), Path.of("chain2"));
        Files.createSymbolicLink(fx.root.resolve("chain2"), Path.of("sub/deeper/up"));
    }

    static Stream<String> escapes() {
        return Stream.of(
                "..", "../outside/canary", "a/../../outside/canary", "/workspace/../outside/canary",
                "/workspace/..", "/etc/passwd", "/", "/workspacefoo/x", "sub/../../outside/canary",
                "./../outside/canary", "sub/deeper/../../../outside",
                "passwd", "canary", "rel-canary", "slash/etc/passwd", "out/canary", "out/new-file",
                "sub/deeper/up/outside/canary", "chain1/outside/canary", "chain1/outside/new-file");
    }

    @ParameterizedTest
    @MethodSource("escapes")
    void everyOperationIsRefused(String path) throws IOException {
        String code = "path_outside_workspace";
        assertRefused(() -> ws.read(path), code);
        assertRefused(() -> ws.write(path, bytes("pwned")), code);
        assertRefused(() -> ws.write(path + "/child", bytes("pwned")), code);
        assertRefused(() -> ws.list(path), code);
        assertRefused(() -> ws.mkdir(path + "/newdir"), code);
        assertRefused(() -> ws.exportTar(path, java.io.OutputStream.nullOutputStream()), code);
        assertRefused(() -> ws.importTar(path + "/x", TarFixtures.archive(t -> TarFixtures.file(t, "f", "pwned"))), code);
        fx.assertOutsideUntouched();
    }

    @ParameterizedTest
    @ValueSource(strings = {"../outside/canary", "/workspace/../outside/canary", "/etc/passwd", "a/../../x"})
    void statAndDeleteOfLexicalEscapesAreRefused(String path) throws IOException {
        assertRefused(() -> ws.stat(path), "path_outside_workspace");
        assertRefused(() -> ws.delete(path, true), "path_outside_workspace");
        fx.assertOutsideUntouched();
    }

    @Test
    void statAndDeleteOfAnEscapingSymlinkActOnTheLinkItself() throws IOException {
        assertThat(ws.stat("out").linkTarget()).isEqualTo(fx.outside.toString());
        ws.delete("out", true);
        assertThat(Files.exists(fx.root.resolve("out"), java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
        fx.assertOutsideUntouched();
    }
}
