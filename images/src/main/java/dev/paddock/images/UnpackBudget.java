package dev.paddock.images;

/** Counts entries and bytes written across all layers of one import and stops at the configured caps. */
final class UnpackBudget {
    private final ImageLimits limits;
    private long entries;
    private long bytes;

    UnpackBudget(ImageLimits limits) {
        this.limits = limits;
    }

    void addEntry() {
        if (++entries > limits.maxEntries()) {
            throw ImageErrors.tooLarge("the image has more than " + limits.maxEntries()
                    + " archive entries; raise the entry limit if the image is trusted");
        }
    }

    void addBytes(long n) {
        bytes += n;
        if (bytes > limits.maxUnpackedBytes()) {
            throw ImageErrors.tooLarge("the unpacked image is larger than " + limits.maxUnpackedBytes()
                    + " bytes; raise the unpacked-size limit if the image is trusted");
        }
    }

    long bytes() {
        return bytes;
    }
}
