package dev.paddock.workspace;

import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static dev.paddock.workspace.WorkspaceFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hostile sandbox keeps swapping a directory for a symlink to an outside directory (with atomic renames)
 * while we write and read through that path thousands of times: nothing may ever land outside.
 */
class SymlinkRaceTest {
    @TempDir Path base;

    @Test
    void swappingADirectoryForAnOutsideSymlinkNeverLetsAWriteOut() throws Exception {
        WorkspaceFixture fx = new WorkspaceFixture(base);
        Path dir = fx.root.resolve("d");
        Path link = fx.root.resolve("d.link");
        Files.createDirectories(dir);
        Files.writeString(fx.outside.resolve("secret"), "outside secret");
        Files.createSymbolicLink(link, fx.outside);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger swaps = new AtomicInteger();
        // renameat2(RENAME_EXCHANGE) swaps the directory and the symlink atomically, so "d" never goes missing
        Thread attacker = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                Exchange.swap(dir, link);
                swaps.incrementAndGet();
            }
        });
        int written = 0;
        int readSecret = 0;
        try {
            for (int i = 0; i < 3000; i++) {
                try {
                    ws(fx).write("d/file-" + (i % 50), bytes("payload " + i));
                    written++;
                } catch (PaddockException expected) {
                    // refused or raced: fine, as long as nothing lands outside
                }
                try (var in = ws(fx).read("d/secret")) {
                    if (new String(in.readAllBytes()).contains("outside")) readSecret++;
                } catch (PaddockException expected) {
                    // not found inside, or refused
                }
            }
        } finally {
            stop.set(true);
            attacker.join();
        }

        assertThat(swaps.get()).as("the attacker really raced us").isPositive();
        assertThat(written).as("some writes went through while the directory was real").isPositive();
        assertThat(readSecret).isZero();
        try (var files = Files.list(fx.outside)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("canary", "secret");
        }
        assertThat(fx.canary).hasContent(WorkspaceFixture.CANARY);
    }

    /** renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE), which java.nio cannot do. */
    static final class Exchange {
        private static final java.lang.invoke.MethodHandle RENAMEAT2 = NativeCall.downcall("renameat2",
                java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.JAVA_INT,
                        java.lang.foreign.ValueLayout.ADDRESS, java.lang.foreign.ValueLayout.JAVA_INT,
                        java.lang.foreign.ValueLayout.ADDRESS, java.lang.foreign.ValueLayout.JAVA_INT));

        static void swap(Path a, Path b) {
            NativeCall.call("renameat2", (s, arena) ->
                    (int) RENAMEAT2.invokeExact(s, -100, arena.allocateFrom(a.toString()), -100, arena.allocateFrom(b.toString()), 2));
        }
    }

    private static HostDirWorkspace ws(WorkspaceFixture fx) {
        return fx.workspace;
    }
}
