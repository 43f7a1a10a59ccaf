package dev.paddock.workspace;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/** Builds hand-made (and hostile) tar archives. */
final class TarFixtures {
    private TarFixtures() {}

    interface Body {
        void write(TarArchiveOutputStream tar) throws IOException;
    }

    static InputStream archive(Body body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
                tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                body.write(tar);
            }
            return new ByteArrayInputStream(bytes.toByteArray());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void file(TarArchiveOutputStream tar, String name, String content) throws IOException {
        byte[] data = content.getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry entry = new TarArchiveEntry(name, true); // preserve absolute names and ".." as given
        entry.setSize(data.length);
        tar.putArchiveEntry(entry);
        tar.write(data);
        tar.closeArchiveEntry();
    }

    static void symlink(TarArchiveOutputStream tar, String name, String target) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name, TarConstants.LF_SYMLINK, true);
        entry.setLinkName(target);
        tar.putArchiveEntry(entry);
        tar.closeArchiveEntry();
    }

    static void hardLink(TarArchiveOutputStream tar, String name, String target) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name, TarConstants.LF_LINK, true);
        entry.setLinkName(target);
        tar.putArchiveEntry(entry);
        tar.closeArchiveEntry();
    }

    static void special(TarArchiveOutputStream tar, String name, byte type) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name, type, true);
        tar.putArchiveEntry(entry);
        tar.closeArchiveEntry();
    }
}
