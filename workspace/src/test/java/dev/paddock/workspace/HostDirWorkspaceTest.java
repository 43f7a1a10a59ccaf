package dev.paddock.workspace;

import dev.paddock.core.spi.FileEntry;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static dev.paddock.workspace.WorkspaceFixture.assertRefused;
import static dev.paddock.workspace.WorkspaceFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

class HostDirWorkspaceTest {
    @TempDir Path base;
    WorkspaceFixture fx;
    HostDirWorkspace ws;

    @BeforeEach
    void setUp() throws IOException {
        fx = new WorkspaceFixture(base);
        ws = fx.workspace;
    }

    @Test
    void writesAndReadsThroughAbsoluteAndRelativePathsCreatingParents() throws IOException {
        FileEntry written = ws.write("/workspace/a/b/c.txt", bytes("hello"));

        assertThat(written.path()).isEqualTo("/workspace/a/b/c.txt");
        assertThat(written.type()).isEqualTo(FileEntry.Type.FILE);
        assertThat(written.size()).isEqualTo(5);
        assertThat(fx.readString("a/b/c.txt")).isEqualTo("hello");
        assertThat(Files.readString(fx.root.resolve("a/b/c.txt"))).isEqualTo("hello");
        assertThat(Files.isDirectory(fx.root.resolve("a/b"))).isTrue();
    }

    @Test
    void overwriteKeepsThePermissionBitsOfTheExistingFile() throws IOException {
        ws.write("run.sh", bytes("#!/bin/sh\n"));
        Files.setPosixFilePermissions(fx.root.resolve("run.sh"), PosixFilePermissions.fromString("rwxr-x---"));

        FileEntry again = ws.write("run.sh", bytes("#!/bin/sh\necho hi\n"));

        assertThat(again.mode()).isEqualTo(0750);
        assertThat(fx.readString("run.sh")).contains("echo hi");
    }

    @Test
    void statAndListDescribeFilesDirectoriesAndSymlinks() throws IOException {
        ws.write("dir/file.txt", bytes("12345"));
        Files.createSymbolicLink(fx.root.resolve("dir/link"), Path.of("file.txt"));

        assertThat(ws.list("/workspace/dir")).extracting(FileEntry::name, FileEntry::type, FileEntry::linkTarget, FileEntry::path)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("file.txt", FileEntry.Type.FILE, null, "/workspace/dir/file.txt"),
                        org.assertj.core.groups.Tuple.tuple("link", FileEntry.Type.SYMLINK, "file.txt", "/workspace/dir/link"));
        FileEntry file = ws.stat("dir/file.txt");
        assertThat(file.size()).isEqualTo(5);
        assertThat(file.mode()).isEqualTo(0644);
        assertThat(file.modifiedAt()).isNotNull();
        assertThat(ws.stat("/workspace").type()).isEqualTo(FileEntry.Type.DIRECTORY);
        assertThat(ws.list("/workspace")).extracting(FileEntry::name).containsExactly("dir");
    }

    @Test
    void symlinksThatStayInsideAreFollowed() throws IOException {
        ws.write("real/data.txt", bytes("inside"));
        Files.createSymbolicLink(fx.root.resolve("abs"), Path.of("/workspace/real"));
        Files.createSymbolicLink(fx.root.resolve("rel"), Path.of("real/data.txt"));
        Files.createSymbolicLink(fx.root.resolve("real/up"), Path.of("../real"));

        assertThat(fx.readString("abs/data.txt")).isEqualTo("inside");
        assertThat(fx.readString("rel")).isEqualTo("inside");
        assertThat(fx.readString("real/up/up/data.txt")).isEqualTo("inside");
        ws.write("rel", bytes("through the link"));
        assertThat(Files.readString(fx.root.resolve("real/data.txt"))).isEqualTo("through the link");
        assertThat(Files.isSymbolicLink(fx.root.resolve("rel"))).isTrue();
        assertThat(ws.list("abs")).extracting(FileEntry::path).contains("/workspace/real/data.txt");
    }

    @Test
    void literalNamesThatLookEncodedStayInside() throws IOException {
        ws.write("%2e%2e/%2fetc", bytes("literal"));
        ws.write("..foo", bytes("dots"));

        assertThat(Files.readString(fx.root.resolve("%2e%2e/%2fetc"))).isEqualTo("literal");
        assertThat(fx.readString("/workspace/..foo")).isEqualTo("dots");
        fx.assertOutsideUntouched();
    }

    @Test
    void nulBytesOverlongAndMissingPathsAreInvalid() {
        assertRefused(() -> ws.read(null), "invalid_path");
        assertRefused(() -> ws.read("a\0b"), "invalid_path");
        assertRefused(() -> ws.write("x".repeat(256), bytes("")), "invalid_path");
        assertRefused(() -> ws.stat("a/".repeat(2100)), "invalid_path");
    }

    @Test
    void symlinkLoopsAreRefused() throws IOException {
        Files.createSymbolicLink(fx.root.resolve("a"), Path.of("b"));
        Files.createSymbolicLink(fx.root.resolve("b"), Path.of("a"));
        Files.createSymbolicLink(fx.root.resolve("self"), Path.of("/workspace/self/x"));

        assertRefused(() -> ws.read("a"), "too_many_links");
        assertRefused(() -> ws.write("b/file", bytes("x")), "too_many_links");
        assertRefused(() -> ws.list("self"), "too_many_links");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS) // a hang guard: a blocking open would never return
    void readingAFifoIsRefusedWithoutBlocking() throws Exception {
        Process mkfifo = new ProcessBuilder("mkfifo", fx.root.resolve("pipe").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        Files.createSymbolicLink(fx.root.resolve("to-pipe"), Path.of("pipe"));

        assertRefused(() -> ws.read("pipe"), "not_a_regular_file");
        assertRefused(() -> ws.read("to-pipe"), "not_a_regular_file");
        assertThat(ws.stat("pipe").type()).isEqualTo(FileEntry.Type.OTHER);
    }

    @Test
    void readingADirectoryIsRefused() throws IOException {
        ws.mkdir("d");
        assertRefused(() -> ws.read("d"), "is_a_directory");
        assertRefused(() -> ws.write("d", bytes("x")), "is_a_directory");
        assertRefused(() -> ws.read("missing"), "file_not_found");
    }

    @Test
    void failedUploadLeavesTheOldContentAndNoTemporaryFile() throws IOException {
        ws.write("doc.txt", bytes("old content"));
        InputStream broken = new InputStream() {
            int sent;
            @Override public int read() throws IOException {
                if (sent++ > 5000) throw new IOException("connection reset");
                return 'n';
            }
        };

        assertRefused(() -> ws.write("doc.txt", broken), "content_read_failed");

        assertThat(fx.readString("doc.txt")).isEqualTo("old content");
        try (var files = Files.list(fx.root)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("doc.txt");
        }
    }

    @Test
    void readersNeverSeeAHalfWrittenFile() throws Exception {
        int size = 512 * 1024;
        byte[] as = new byte[size];
        byte[] bs = new byte[size];
        java.util.Arrays.fill(as, (byte) 'a');
        java.util.Arrays.fill(bs, (byte) 'b');
        ws.write("big", new ByteArrayInputStream(as));
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> problem = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            while (!done.get()) {
                try (InputStream in = ws.read("big")) {
                    byte[] seen = in.readAllBytes();
                    if (seen.length != size || seen[0] != seen[size - 1]) problem.set("saw " + seen.length + " bytes, mixed content");
                } catch (IOException e) {
                    problem.set(e.toString());
                }
            }
        });
        for (int i = 0; i < 60; i++) ws.write("big", new ByteArrayInputStream(i % 2 == 0 ? bs : as));
        done.set(true);
        reader.join();

        assertThat(problem.get()).isNull();
    }

    @Test
    void deleteRemovesSymlinksNotTheirTargets() throws IOException {
        Files.writeString(fx.outside.resolve("keep"), "x");
        Files.createDirectories(fx.root.resolve("tree/sub"));
        Files.createSymbolicLink(fx.root.resolve("tree/sub/out"), fx.outside);
        Files.createSymbolicLink(fx.root.resolve("outlink"), fx.outside);
        ws.write("tree/sub/f", bytes("f"));

        assertRefused(() -> ws.delete("tree", false), "directory_not_empty");
        ws.delete("tree", true);
        ws.delete("outlink", false);

        assertThat(fx.root.resolve("tree")).doesNotExist();
        assertThat(Files.exists(fx.root.resolve("outlink"), java.nio.file.LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(fx.outside.resolve("keep")).hasContent("x");
        assertThat(fx.canary).hasContent(WorkspaceFixture.CANARY);
        assertRefused(() -> ws.delete("/workspace", true), "cannot_delete_workspace_root");
    }

    @Test
    void clearEmptiesTheRootButKeepsIt() throws IOException {
        ws.write("a/b/c", bytes("1"));
        ws.write(".hidden", bytes("2"));
        Files.createSymbolicLink(fx.root.resolve("out"), fx.outside);

        ws.clear();

        assertThat(fx.root).isEmptyDirectory();
        fx.assertOutsideUntouched();
    }

    @Test
    void mkdirIsIdempotentAndRefusesFiles() throws IOException {
        ws.mkdir("x/y/z");
        ws.mkdir("/workspace/x/y/z");
        ws.write("file", bytes("1"));

        assertThat(fx.root.resolve("x/y/z")).isDirectory();
        assertRefused(() -> ws.mkdir("file"), "already_exists");
    }

    @Test
    void aPathEndingInASlashNamesADirectory() throws IOException {
        ws.write("a.txt", bytes("file"));
        assertRefused(() -> ws.read("a.txt/"), "not_a_directory");
        assertRefused(() -> ws.stat("a.txt/."), "not_a_directory");
        assertRefused(() -> ws.write("newdir/", bytes("x")), "invalid_path");
        assertThat(fx.root.resolve("newdir")).doesNotExist();
        ws.mkdir("made/");
        assertThat(fx.root.resolve("made")).isDirectory();
        assertThat(ws.list("made/")).isEmpty();
    }

    @Test
    void deepPathsAreMadeLevelByLevelWithoutBeingTakenForASymlinkLoop() throws IOException {
        String deep = "deep/" + "d/".repeat(99) + "leaf.txt";
        ws.write(deep, bytes("at the bottom"));
        assertThat(fx.root.resolve(deep)).hasContent("at the bottom");
        ws.mkdir("other/" + "d/".repeat(99));
        assertThat(fx.root.resolve("other/" + "d/".repeat(99))).isDirectory();
    }

    @Test
    void createdFilesBelongToTheSandboxOwner() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "chown needs root");
        HostDirWorkspace owned = new HostDirWorkspace(fx.root, 12345, 12346);

        owned.write("new/dir/file", bytes("x"));
        owned.mkdir("made");
        owned.importTar("unpacked", TarFixtures.archive(t -> {
            TarFixtures.file(t, "sub/file", "y");
            TarFixtures.symlink(t, "sub/link", "file");
        }));

        for (String p : new String[] {"new", "new/dir", "new/dir/file", "made", "unpacked", "unpacked/sub", "unpacked/sub/file"}) {
            assertThat(Files.getAttribute(fx.root.resolve(p), "unix:uid")).as(p).isEqualTo(12345);
            assertThat(Files.getAttribute(fx.root.resolve(p), "unix:gid")).as(p).isEqualTo(12346);
        }
        assertThat(Files.getAttribute(fx.root.resolve("unpacked/sub/link"), "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS)).isEqualTo(12345);
    }

    @Test
    void missingRootIsAClearError() {
        HostDirWorkspace gone = new HostDirWorkspace(base.resolve("nope"), -1, -1);
        assertRefused(() -> gone.list("/workspace"), "workspace_missing");
    }

    @Test
    void bytesWrittenAreReadBackExactly() throws IOException {
        byte[] data = new byte[200_003];
        new java.util.Random(7).nextBytes(data);
        ws.write("bin", new ByteArrayInputStream(data));
        try (InputStream in = ws.read("/workspace/bin")) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
    }
}
