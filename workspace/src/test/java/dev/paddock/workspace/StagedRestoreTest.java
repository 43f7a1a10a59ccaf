package dev.paddock.workspace;

import dev.paddock.core.spi.Workspace;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static dev.paddock.workspace.WorkspaceFixture.assertRefused;
import static dev.paddock.workspace.WorkspaceFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A restore is all or nothing: a crash at any point leaves, after recovery, the old tree or the new one, never a mix. */
class StagedRestoreTest {
    /** Stands for the process being killed: no catch block of the code under test handles it. */
    static final class Crash extends Error {
        Crash(String where) { super("crash " + where); }
    }

    @TempDir Path tempDir;
    /** On tmpfs when there is one: the staged unpack ends in syncfs, which on a busy disk waits for everyone's writes. */
    Path base;
    Path root;
    Path stagingDir;
    Map<String, String> oldTree;
    byte[] newArchive;
    Map<String, String> newTree;

    @BeforeEach
    void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        base = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "staged-restore-") : tempDir;
        root = Files.createDirectories(base.resolve("sandbox/workspace"));
        stagingDir = base.resolve("sandbox/.staging");
        HostDirWorkspace ws = workspace();
        for (int i = 0; i < 1000; i++) put("new/d" + (i % 30) + "/f" + i, "new " + i);
        put("shared.txt", "new version");
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        ws.exportTar(Workspace.ROOT, tar);
        newArchive = tar.toByteArray();
        newTree = tree(root);
        ws.clear();
        for (int i = 0; i < 50; i++) put("old/f" + i, "old " + i);
        put("shared.txt", "old version");
        put("only-old.txt", "old");
        oldTree = tree(root);
    }

    @AfterEach
    void cleanUp() throws IOException {
        Staging.crashPoint = phase -> { };
        if (!base.equals(tempDir)) {
            try (Stream<Path> s = Files.walk(base)) {
                for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
            }
        }
    }

    private void put(String path, String content) throws IOException {
        Path p = root.resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, content);
    }

    private HostDirWorkspace workspace() {
        return new HostDirWorkspace(root, Workspace.ROOT, -1, -1, TarLimits.DEFAULT, stagingDir);
    }

    @Test
    void aRestoreReplacesTheTreeAndLeavesNothingInTheStagingArea() throws IOException {
        List<String> guarded = new ArrayList<>();
        workspace().replaceFromTar(new ByteArrayInputStream(newArchive), swap -> {
            guarded.add("swap: " + tree(root).equals(oldTree)); // the unpack happened before, outside the guard
            swap.run();
        });
        assertThat(guarded).containsExactly("swap: true");
        assertThat(tree(root)).isEqualTo(newTree);
        assertThat(stagingEntries()).isEmpty();
    }

    @Test
    void aCrashDuringTheUnpackLeavesTheOldTreeAndRecoveryRemovesTheStagedPart() throws IOException {
        InputStream dies = new FilterInputStream(new ByteArrayInputStream(newArchive)) {
            long read;

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (read > newArchive.length / 3) throw new Crash("mid-unpack");
                int n = super.read(b, off, len);
                read += Math.max(n, 0);
                return n;
            }
        };
        assertThatThrownBy(() -> workspace().replaceFromTar(dies, Workspace.SwapGuard.NONE)).isInstanceOf(Crash.class);
        assertThat(tree(root)).isEqualTo(oldTree);
        assertThat(stagingEntries()).anyMatch(n -> n.startsWith("unpack-"));

        workspace().recover();
        assertThat(tree(root)).isEqualTo(oldTree);
        assertThat(stagingEntries()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"committed", "trashed", "swapping"})
    void aCrashDuringTheSwapIsRolledForwardByRecovery(String phase) throws IOException {
        Staging.crashPoint = p -> {
            if (p.equals(phase)) throw new Crash(p);
        };
        assertThatThrownBy(() -> workspace().replaceFromTar(new ByteArrayInputStream(newArchive), Workspace.SwapGuard.NONE))
                .isInstanceOf(Crash.class);
        Staging.crashPoint = p -> { };

        workspace().recover();
        assertThat(tree(root)).isEqualTo(newTree);
        assertThat(stagingEntries()).isEmpty();
    }

    @Test
    void aRestoreFinishesAnEarlierInterruptedSwapFirst() throws IOException {
        Staging.crashPoint = p -> {
            if (p.equals("trashed")) throw new Crash(p);
        };
        assertThatThrownBy(() -> workspace().replaceFromTar(new ByteArrayInputStream(newArchive), Workspace.SwapGuard.NONE))
                .isInstanceOf(Crash.class);
        Staging.crashPoint = p -> { };
        ByteArrayOutputStream small = new ByteArrayOutputStream();
        HostDirWorkspace other = new HostDirWorkspace(Files.createDirectories(base.resolve("other")), -1, -1);
        other.write("just-this.txt", bytes("x"));
        other.exportTar(Workspace.ROOT, small);

        workspace().replaceFromTar(new ByteArrayInputStream(small.toByteArray()), Workspace.SwapGuard.NONE);
        assertThat(tree(root)).isEqualTo(Map.of("just-this.txt", "x"));
        assertThat(stagingEntries()).isEmpty();
    }

    @Test
    void aBadArchiveLeavesTheOldTreeAndNoStagedFiles() throws IOException {
        byte[] cut = java.util.Arrays.copyOf(newArchive, newArchive.length / 2 + 100);
        assertRefused(() -> workspace().replaceFromTar(new ByteArrayInputStream(cut), Workspace.SwapGuard.NONE), "invalid_tar");
        assertThat(tree(root)).isEqualTo(oldTree);
        assertThat(stagingEntries()).isEmpty();
    }

    @Test
    void uploadTemporariesLiveInTheStagingAreaAndLeftoversAreRemoved() throws IOException {
        HostDirWorkspace ws = workspace();
        List<String> seenDuringUpload = new ArrayList<>();
        InputStream content = new ByteArrayInputStream("payload".getBytes(StandardCharsets.UTF_8)) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                try {
                    seenDuringUpload.add("workspace " + tree(root).keySet().stream().anyMatch(n -> n.contains(".paddock-")));
                    seenDuringUpload.add("staging " + stagingEntries().stream().anyMatch(n -> n.startsWith(".paddock-")));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return super.read(b, off, len);
            }
        };
        ws.write("old/uploaded.txt", content);
        assertThat(seenDuringUpload).contains("workspace false", "staging true").doesNotContain("workspace true");
        assertThat(Files.readString(root.resolve("old/uploaded.txt"))).isEqualTo("payload");

        Files.writeString(stagingDir.resolve(".paddock-0123456789abcdef.tmp"), "cut short by a crash");
        Files.createDirectories(stagingDir.resolve("trash-0123456789abcdef/x"));
        ws.recover();
        assertThat(stagingEntries()).isEmpty();
    }

    private List<String> stagingEntries() throws IOException {
        if (!Files.isDirectory(stagingDir)) return List.of();
        try (Stream<Path> s = Files.list(stagingDir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        }
    }

    /** Every file under {@code dir} by relative path, with its content. */
    static Map<String, String> tree(Path dir) {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) out.put(dir.relativize(p).toString(), Files.readString(p));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out;
    }
}
