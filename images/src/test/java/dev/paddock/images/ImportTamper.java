package dev.paddock.images;

/** Corruptions applied to archive members after their digests were recorded. */
final class ImportTamper {
    private ImportTamper() {}

    static byte[] flipMiddleByte(byte[] data) {
        byte[] copy = data.clone();
        // the tail of a tar or gzip stream is padding or trailer; the middle is content
        copy[copy.length / 2] ^= 0x01;
        return copy;
    }
}
