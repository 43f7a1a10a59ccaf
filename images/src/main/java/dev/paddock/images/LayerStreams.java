package dev.paddock.images;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.apache.commons.compress.compressors.zstandard.ZstdCompressorInputStream;
import org.apache.commons.compress.compressors.zstandard.ZstdUtils;

/** Opens a layer blob as an uncompressed tar stream, choosing the decompressor from the blob's magic bytes. */
final class LayerStreams {
    private LayerStreams() {}

    static InputStream openTar(Path blob, String label) throws IOException {
        InputStream raw = new BufferedInputStream(Files.newInputStream(blob), 64 * 1024);
        try {
            raw.mark(8);
            byte[] magic = raw.readNBytes(6);
            raw.reset();
            if (startsWith(magic, 0x1f, 0x8b)) {
                return GzipCompressorInputStream.builder().setInputStream(raw).setDecompressConcatenated(true).get();
            }
            if (startsWith(magic, 0x28, 0xb5, 0x2f, 0xfd)) {
                if (!ZstdUtils.isZstdCompressionAvailable()) {
                    throw ImageErrors.unsupported(label + " is zstd-compressed, which this build cannot read; "
                            + "re-export the image with gzip or uncompressed layers (e.g. docker save, or "
                            + "skopeo copy --dest-compress-format gzip)");
                }
                return new ZstdCompressorInputStream(raw);
            }
            if (startsWith(magic, 'B', 'Z', 'h') || startsWith(magic, 0xfd, '7', 'z', 'X', 'Z')) {
                throw ImageErrors.unsupported(label + " uses bzip2/xz compression; only gzip, zstd and "
                        + "uncompressed layers are supported");
            }
            return raw;
        } catch (IOException | RuntimeException e) {
            raw.close();
            throw e;
        }
    }

    private static boolean startsWith(byte[] data, int... prefix) {
        if (data.length < prefix.length) return false;
        for (int i = 0; i < prefix.length; i++) {
            if ((data[i] & 0xff) != prefix[i]) return false;
        }
        return true;
    }
}
