package dev.paddock.images;

import dev.paddock.core.CappedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * One layer blob of an image archive with the digests that vouch for it.
 *
 * @param blobDigest digest of the blob as stored (OCI layout descriptors), or null
 * @param diffId     digest of the uncompressed tar (image config {@code rootfs.diff_ids}), or null
 */
record OciLayer(Path blob, String label, String blobDigest, String diffId) {

    /** Refuses the layer unless its content matches the digest the manifest or config promised. */
    void verify(ImageLimits limits) throws IOException {
        if (blobDigest != null) {
            Digests.verify(blob, blobDigest, label);
            return;
        }
        if (diffId == null) {
            throw ImageErrors.invalidArchive(label + " has no digest to verify it against; the archive's manifest "
                    + "or config is incomplete");
        }
        String actual;
        try (InputStream tar = openTar(limits)) {
            actual = Digests.of(tar);
        }
        if (!actual.equals(diffId)) throw ImageErrors.digestMismatch(label, diffId, actual);
    }

    /** The layer's uncompressed tar, refused past {@code limits.maxUnpackedBytes()}. */
    InputStream openTar(ImageLimits limits) throws IOException {
        String tooLarge = label + " decompresses to more than " + limits.maxUnpackedBytes() + " bytes";
        return new CappedInputStream(LayerStreams.openTar(blob, label), limits.maxUnpackedBytes(), () -> {
            throw ImageErrors.tooLarge(tooLarge);
        });
    }
}
