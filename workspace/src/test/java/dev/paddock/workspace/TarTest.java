package dev.paddock.workspace;

import dev.paddock.core.spi.FileEntry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static dev.paddock.workspace.TarFixtures.archive;
import static dev.paddock.workspace.TarFixtures.file;
import static dev.paddock.workspace.TarFixtures.hardLink;
import static dev.paddock.workspace.TarFixtures.symlink;
import static dev.paddock.workspace.WorkspaceFixture.assertRefused;
import static dev.paddock.workspace.WorkspaceFixture.bytes;
import static org.assertj.core.api.Assertions.assertThat;

class TarTest {
    @TempDir Path base;
    WorkspaceFixture fx;
    HostDirWorkspace ws;

    @BeforeEach
    void setUp() throws IOException {
        fx = new WorkspaceFixture(base);
        ws = fx.workspace;
    }

    @Test
    void exportThenImportRestoresFilesDirectoriesSymlinksModesAndTimes() throws Exception {
        String longName = "deep/" + "n".repeat(120) + "/" + "f".repeat(150) + ".txt";
        ws.write("src/main.py", bytes("print('hi')\n"));
        ws.write("bin/run", bytes("#!/bin/sh\n"));
        ws.write(longName, bytes("long"));
        ws.write("ünïcode/名前.txt", bytes("utf8"));
        ws.mkdir("empty");
        Files.setPosixFilePermissions(fx.root.resolve("bin/run"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(fx.root.resolve("src/main.py"), PosixFilePermissions.fromString("rw-------"));
        Files.setLastModifiedTime(fx.root.resolve("src/main.py"), FileTime.from(Instant.parse("2020-01-02T03:04:05Z")));
        Files.createSymbolicLink(fx.root.resolve("link"), Path.of("src/main.py"));
        Files.createSymbolicLink(fx.root.resolve("venv-python"), Path.of("/usr/bin/python3")); // kept as a link, never followed
        Process mkfifo = new ProcessBuilder("mkfifo", fx.root.resolve("pipe").toString()).start();
        assertThat(mkfifo.waitFor()).isZero();
        List<String> before = snapshot();

        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        ws.exportTar("/workspace", tar);
        ws.write("src/main.py", bytes("changed"));
        ws.write("extra", bytes("added later"));
        ws.clear();
        ws.importTar("/workspace", new ByteArrayInputStream(tar.toByteArray()));

        List<String> after = snapshot();
        assertThat(after).isEqualTo(before.stream().filter(s -> !s.startsWith("/workspace/pipe ")).toList());
        assertThat(fx.readString(longName)).isEqualTo("long");
        assertThat(fx.readString("link")).isEqualTo("print('hi')\n");
        assertThat(Files.readSymbolicLink(fx.root.resolve("venv-python"))).isEqualTo(Path.of("/usr/bin/python3"));
        assertThat(ws.stat("src/main.py").modifiedAt()).isEqualTo(Instant.parse("2020-01-02T03:04:05Z"));
    }

    @Test
    void exportOfASubdirectoryUsesNamesRelativeToIt() throws IOException {
        ws.write("a/b/c.txt", bytes("c"));
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        ws.exportTar("a", tar);

        ws.importTar("copy", new ByteArrayInputStream(tar.toByteArray()));

        assertThat(fx.readString("copy/b/c.txt")).isEqualTo("c");
    }

    @Test
    void absoluteAndDotDotEntriesAreRefused() throws IOException {
        assertRefused(() -> ws.importTar("/workspace", archive(t -> file(t, fx.outside.resolve("evil").toString(), "x"))), "tar_entry_outside");
        assertRefused(() -> ws.importTar("/workspace", archive(t -> file(t, "../outside/evil", "x"))), "tar_entry_outside");
        assertRefused(() -> ws.importTar("/workspace/sub", archive(t -> file(t, "ok/../../../outside/evil", "x"))), "tar_entry_outside");
        fx.assertOutsideUntouched();
    }

    @Test
    void aSymlinkInTheArchiveCannotCarryALaterEntryOut() throws IOException {
        assertRefused(() -> ws.importTar("/workspace", archive(t -> {
            symlink(t, "escape", fx.outside.toString());
            file(t, "escape/evil", "pwned");
        })), "tar_entry_outside");
        assertRefused(() -> ws.importTar("/workspace", archive(t -> {
            symlink(t, "up", "..");
            file(t, "up/outside/evil", "pwned");
        })), "tar_entry_outside");
        assertRefused(() -> ws.importTar("/workspace/target", archive(t -> {
            symlink(t, "sideways", "/workspace/elsewhere");
            file(t, "sideways/evil", "lands in the workspace but outside the target");
        })), "tar_entry_outside");
        assertRefused(() -> ws.importTar("/workspace", archive(t -> {
            symlink(t, "canary-link", fx.canary.toString());
            file(t, "canary-link", "overwrites the link, never the canary");
            symlink(t, "dir-link", fx.outside.toString());
            symlink(t, "dir-link/nested", "x");
        })), "tar_entry_outside");

        fx.assertOutsideUntouched();
        assertThat(fx.root.resolve("elsewhere/evil")).doesNotExist();
        assertThat(Files.isSymbolicLink(fx.root.resolve("canary-link"))).isFalse();
        assertThat(fx.root.resolve("canary-link")).hasContent("overwrites the link, never the canary");
    }

    @Test
    void hardLinksMustPointInsideTheArchive() throws IOException {
        assertRefused(() -> ws.importTar("/workspace", archive(t -> hardLink(t, "h", "../outside/canary"))), "tar_entry_outside");
        assertRefused(() -> ws.importTar("/workspace", archive(t -> hardLink(t, "h", fx.canary.toString()))), "tar_entry_outside");
        Files.createSymbolicLink(fx.root.resolve("to-canary"), fx.canary);
        assertRefused(() -> ws.importTar("/workspace", archive(t -> hardLink(t, "h", "to-canary"))), "tar_entry_invalid");

        ws.importTar("/workspace", archive(t -> {
            file(t, "original", "shared");
            hardLink(t, "copy", "original");
        }));

        assertThat(fx.readString("copy")).isEqualTo("shared");
        assertThat(Files.getAttribute(fx.root.resolve("copy"), "unix:nlink")).isEqualTo(2);
        fx.assertOutsideUntouched();
    }

    @Test
    void setuidAndSetgidBitsAreNeverRestored() throws IOException {
        ws.importTar("/workspace", archive(t -> {
            org.apache.commons.compress.archivers.tar.TarArchiveEntry entry = new org.apache.commons.compress.archivers.tar.TarArchiveEntry("suid");
            entry.setMode(0104755);
            entry.setSize(1);
            t.putArchiveEntry(entry);
            t.write('x');
            t.closeArchiveEntry();
        }));

        assertThat(ws.stat("suid").mode()).isEqualTo(0755);
    }

    @Test
    void exportedArchivesCarryNoHostUserNames() throws IOException {
        ws.write("f", bytes("x"));
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        ws.exportTar("/workspace", tar);

        try (var in = new org.apache.commons.compress.archivers.tar.TarArchiveInputStream(new ByteArrayInputStream(tar.toByteArray()))) {
            var entry = in.getNextEntry();
            assertThat(entry.getName()).isEqualTo("f");
            assertThat(entry.getUserName()).isEmpty();
            assertThat(entry.getLongUserId()).isZero();
        }
    }

    @Test
    void devicesAndFifosAreRefused() {
        assertRefused(() -> ws.importTar("/workspace", archive(t -> TarFixtures.special(t, "fifo", TarConstants.LF_FIFO))), "tar_entry_unsupported");
        assertRefused(() -> ws.importTar("/workspace", archive(t -> TarFixtures.special(t, "null", TarConstants.LF_CHR))), "tar_entry_unsupported");
        assertRefused(() -> ws.importTar("/workspace", archive(t -> TarFixtures.special(t, "sda", TarConstants.LF_BLK))), "tar_entry_unsupported");
    }

    @Test
    void sizeAndEntryCountAreCapped() {
        HostDirWorkspace small = new HostDirWorkspace(fx.root, -1, -1, new TarLimits(10, 3));

        assertRefused(() -> small.importTar("/workspace", archive(t -> file(t, "big", "more than ten bytes"))), "tar_too_large");
        assertRefused(() -> small.importTar("/workspace", archive(t -> {
            for (int i = 0; i < 4; i++) file(t, "f" + i, "");
        })), "tar_too_many_entries");
    }

    @Test
    void garbageIsAClearError() {
        assertRefused(() -> ws.importTar("/workspace", new ByteArrayInputStream("definitely not a tar archive, just some text that is long enough to fill a header block maybe".repeat(10).getBytes())), "invalid_tar");
        // shorter than a header block: the tar reader alone would take it for the end of an empty archive
        assertRefused(() -> ws.importTar("/workspace", new ByteArrayInputStream("garbage not a tar".getBytes())), "invalid_tar");
        // an empty archive (its zero blocks) or no body imports nothing and is fine
        ws.importTar("/workspace", new ByteArrayInputStream(new byte[1024]));
        ws.importTar("/workspace", new ByteArrayInputStream(new byte[0]));
    }

    /** Every entry under the root as "path type mode size target content-hash", sorted. */
    private List<String> snapshot() throws IOException {
        List<String> lines = new ArrayList<>();
        collect("/workspace", lines);
        return lines.stream().sorted().toList();
    }

    private void collect(String dir, List<String> lines) throws IOException {
        for (FileEntry e : ws.list(dir)) {
            String content = "";
            if (e.type() == FileEntry.Type.FILE) {
                try (var in = ws.read(e.path())) {
                    content = Integer.toHexString(java.util.Arrays.hashCode(in.readAllBytes()));
                }
            }
            String mtime = e.type() == FileEntry.Type.DIRECTORY ? "" : String.valueOf(e.modifiedAt().getEpochSecond());
            lines.add(e.path() + " " + e.type() + " " + Integer.toOctalString(e.mode()) + " "
                    + (e.type() == FileEntry.Type.DIRECTORY ? "" : e.size()) + " " + e.linkTarget() + " " + content + " " + mtime);
            if (e.type() == FileEntry.Type.DIRECTORY) collect(e.path(), lines);
        }
        assertThat(Files.exists(fx.root, LinkOption.NOFOLLOW_LINKS)).isTrue();
    }
}
