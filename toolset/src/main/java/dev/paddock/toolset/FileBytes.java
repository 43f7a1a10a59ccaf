package dev.paddock.toolset;

import dev.paddock.core.spi.Workspace;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** Reads a whole workspace file, refusing (without loading it all) one larger than the limit. */
final class FileBytes {
    private FileBytes() {}

    /** The file's bytes, or null when it holds more than {@code limit} bytes. */
    static byte[] readAtMost(Workspace ws, String path, int limit) {
        try (InputStream in = ws.read(path)) {
            byte[] bytes = in.readNBytes(limit + 1);
            return bytes.length > limit ? null : bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
