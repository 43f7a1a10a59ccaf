package dev.paddock.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Archives from a sandbox are hostile: unpacking may only create plain files and directories under the target. */
class LocalTarTest {
    @TempDir Path tmp;

    @Test
    void packThenUnpackRoundTrips() throws IOException {
        Path src = Files.createDirectories(tmp.resolve("src/a/b"));
        Files.writeString(src.resolve("deep.txt"), "deep");
        Path run = Files.writeString(tmp.resolve("src/run.sh"), "#!/bin/sh\n");
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        ByteArrayOutputStream tar = new ByteArrayOutputStream();
        LocalTar.pack(tmp.resolve("src"), tar);

        Path out = tmp.resolve("out");
        assertThat(LocalTar.unpack(new ByteArrayInputStream(tar.toByteArray()), out)).isZero();
        assertThat(Files.readString(out.resolve("a/b/deep.txt"))).isEqualTo("deep");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("run.sh")))).isEqualTo("rwxr-xr-x");
    }

    @Test
    void refusesEntriesThatClimbOut() throws IOException {
        byte[] tar = tar(file("../escaped.txt", "x"));
        Path out = tmp.resolve("out");
        assertThatThrownBy(() -> LocalTar.unpack(new ByteArrayInputStream(tar), out))
                .isInstanceOf(CliException.class).hasMessageContaining("outside the target");
        assertThat(tmp.resolve("escaped.txt")).doesNotExist();
    }

    @Test
    void skipsLinksAndDropsSetuid() throws IOException {
        TarArchiveEntry link = new TarArchiveEntry("passwd", TarArchiveEntry.LF_SYMLINK);
        link.setLinkName("/etc/passwd");
        TarArchiveEntry suid = file("tool", "bin");
        suid.setMode(04755);
        byte[] tar = tar(link, suid);
        Path out = tmp.resolve("out");
        assertThat(LocalTar.unpack(new ByteArrayInputStream(tar), out)).isEqualTo(1);
        assertThat(out.resolve("passwd")).doesNotExist();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("tool")))).isEqualTo("rwxr-xr-x");
    }

    @Test
    void refusesToWriteThroughAnExistingSymlinkedDirectory() throws IOException {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Path out = Files.createDirectories(tmp.resolve("out"));
        Files.createSymbolicLink(out.resolve("sub"), outside);
        byte[] tar = tar(file("sub/planted.txt", "x"));
        assertThatThrownBy(() -> LocalTar.unpack(new ByteArrayInputStream(tar), out))
                .isInstanceOf(CliException.class).hasMessageContaining("symlink");
        assertThat(outside.resolve("planted.txt")).doesNotExist();
    }

    private static TarArchiveEntry file(String name, String content) {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(content.getBytes(StandardCharsets.UTF_8).length);
        e.setMode(0644);
        return e;
    }

    /** File entries get zero bytes of their declared size: the content does not matter here. */
    private static byte[] tar(TarArchiveEntry... entries) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(out)) {
            for (TarArchiveEntry e : entries) {
                tar.putArchiveEntry(e);
                if (e.isFile()) tar.write(new byte[(int) e.getSize()]);
                tar.closeArchiveEntry();
            }
        }
        return out.toByteArray();
    }
}
