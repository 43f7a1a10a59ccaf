package dev.paddock.images;

/**
 * Caps that keep a hostile or broken archive from filling the disk or the inode table.
 *
 * @param maxArchiveBytes  total bytes of files inside the outer OCI / docker archive
 * @param maxUnpackedBytes total bytes of regular-file content written into a rootfs (all layers together)
 * @param maxEntries       total tar entries across all layers
 * @param maxLayers        layers in one image
 */
public record ImageLimits(long maxArchiveBytes, long maxUnpackedBytes, long maxEntries, int maxLayers) {
    public static final ImageLimits DEFAULT =
            new ImageLimits(16L << 30, 32L << 30, 2_000_000, 256);

    public ImageLimits {
        if (maxArchiveBytes <= 0 || maxUnpackedBytes <= 0 || maxEntries <= 0 || maxLayers <= 0) {
            throw new IllegalArgumentException("image limits must be positive");
        }
    }
}
