package dev.paddock.images;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;

/** Builds tar archives in memory, including entries no honest tool would write. */
final class TarBuilder {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes);

    TarBuilder() {
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
    }

    TarBuilder dir(String name) {
        TarArchiveEntry e = new TarArchiveEntry(name.endsWith("/") ? name : name + "/", true);
        e.setMode(040755);
        return put(e, null);
    }

    TarBuilder file(String name, String content) {
        return file(name, content, 0644);
    }

    TarBuilder file(String name, String content, int mode) {
        return file(name, content.getBytes(StandardCharsets.UTF_8), mode);
    }

    TarBuilder file(String name, byte[] content, int mode) {
        TarArchiveEntry e = new TarArchiveEntry(name, true); // keep absolute names: tests need hostile ones
        e.setMode(0100000 | mode);
        e.setSize(content.length);
        return put(e, content);
    }

    TarBuilder symlink(String name, String target) {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK, true);
        e.setLinkName(target);
        return put(e, null);
    }

    TarBuilder hardlink(String name, String target) {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_LINK, true);
        e.setLinkName(target);
        return put(e, null);
    }

    TarBuilder charDevice(String name) {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_CHR, true);
        e.setDevMajor(1);
        e.setDevMinor(3);
        return put(e, null);
    }

    byte[] build() {
        try {
            tar.finish();
            tar.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static byte[] gzip(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GzipCompressorOutputStream gz = new GzipCompressorOutputStream(out)) {
            gz.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private TarBuilder put(TarArchiveEntry e, byte[] content) {
        try {
            tar.putArchiveEntry(e);
            if (content != null) tar.write(content);
            tar.closeArchiveEntry();
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return this;
    }
}
