package dev.paddock.workspace;

/** Caps on what one tar import may unpack, so an archive cannot fill the disk or the inode table. */
public record TarLimits(long maxTotalBytes, long maxEntries) {
    public static final TarLimits DEFAULT = new TarLimits(10L << 30, 1_000_000);

    public TarLimits {
        if (maxTotalBytes < 0 || maxEntries < 0) throw new IllegalArgumentException("tar limits must not be negative");
    }
}
