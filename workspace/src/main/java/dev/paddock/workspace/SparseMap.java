package dev.paddock.workspace;

import dev.paddock.core.LimitedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a sparse file holds data, and the map a GNU tar "PAX 1.0" sparse entry starts its data area with: the
 * number of regions, then each region's offset and length, one decimal number a line, padded with NULs to a
 * 512-byte boundary; the regions' bytes follow back to back. A file that ends in a hole gets a last region of
 * length 0 at its size, as GNU tar writes it. Holes are found with lseek(SEEK_DATA/SEEK_HOLE), so a 100 GiB hole
 * costs two system calls, not 100 GiB of reads.
 */
record SparseMap(List<Region> regions, long realSize) {
    /** A map of more regions is not read; on export the rest of a file past this many is written as data. */
    static final int MAX_REGIONS = 100_000;
    private static final int BLOCK = 512;
    private static final int MAX_DIGITS = 19;
    static final String ENDED_INSIDE_DATA = "the archive ends inside a sparse file's data";

    record Region(long offset, long length) {}

    /**
     * The data regions of an open regular file of {@code size} bytes; null when it has no holes or the filesystem
     * cannot tell. Leaves the file's offset at 0.
     */
    static SparseMap scan(Fd file, long size) {
        try {
            return regions(file, size);
        } finally {
            Posix.lseek(file.fd(), 0, Posix.SEEK_SET);
        }
    }

    private static SparseMap regions(Fd file, long size) {
        List<Region> regions = new ArrayList<>();
        long pos = 0;
        while (pos < size) {
            long data;
            try {
                data = Posix.lseek(file.fd(), pos, Posix.SEEK_DATA);
            } catch (Errno e) {
                if (e.errno() == Errno.ENXIO) break; // only a hole from here on
                if (e.errno() == Errno.EINVAL) return null; // no SEEK_DATA on this filesystem: read it whole
                throw e;
            }
            if (data >= size) break;
            long end = regions.size() == MAX_REGIONS - 2 ? size : Math.min(size, Posix.lseek(file.fd(), data, Posix.SEEK_HOLE));
            regions.add(new Region(data, end - data));
            pos = end;
        }
        if (regions.size() == 1 && regions.getFirst().offset() == 0 && regions.getFirst().length() == size) return null;
        if (size == 0) return null;
        if (regions.isEmpty() || end(regions.getLast()) < size) regions.add(new Region(size, 0));
        return new SparseMap(List.copyOf(regions), size);
    }

    private static long end(Region r) {
        return r.offset() + r.length();
    }

    /** The map as it opens the entry's data area, padded to a whole block. */
    byte[] encode() {
        StringBuilder text = new StringBuilder().append(regions.size()).append('\n');
        for (Region r : regions) text.append(r.offset()).append('\n').append(r.length()).append('\n');
        byte[] ascii = text.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] padded = new byte[(ascii.length + BLOCK - 1) / BLOCK * BLOCK];
        System.arraycopy(ascii, 0, padded, 0, ascii.length);
        return padded;
    }

    long dataBytes() {
        long sum = 0;
        for (Region r : regions) sum += r.length();
        return sum;
    }

    /**
     * Reads the map at the start of an entry's data area of {@code entrySize} bytes (consuming its padding) and checks
     * it against the archive: regions in order, inside {@code realSize}, and exactly filling the rest of the entry.
     */
    static SparseMap read(InputStream in, long entrySize, long realSize) throws IOException {
        long[] consumed = {0};
        long count = number(in, consumed);
        if (count > MAX_REGIONS) throw new IOException("sparse map of " + count + " regions (at most " + MAX_REGIONS + ")");
        List<Region> regions = new ArrayList<>();
        long previousEnd = 0;
        long data = 0;
        for (long i = 0; i < count; i++) {
            long offset = number(in, consumed);
            long length = number(in, consumed);
            if (offset < previousEnd || length > realSize || offset > realSize - length) {
                throw new IOException("sparse map region " + offset + "+" + length + " overlaps or lies past the file's size " + realSize);
            }
            regions.add(new Region(offset, length));
            previousEnd = offset + length;
            data += length;
        }
        long mapBytes = (consumed[0] + BLOCK - 1) / BLOCK * BLOCK;
        in.skipNBytes(mapBytes - consumed[0]);
        if (mapBytes + data != entrySize) throw new IOException("sparse map does not match the entry's size");
        return new SparseMap(List.copyOf(regions), realSize);
    }

    private static long number(InputStream in, long[] consumed) throws IOException {
        long value = 0;
        int digits = 0;
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < '0' || c > '9' || ++digits > MAX_DIGITS) throw new IOException("malformed sparse map");
            value = value * 10 + (c - '0');
            consumed[0]++;
        }
        consumed[0]++;
        if (digits == 0 || value < 0) throw new IOException("malformed sparse map");
        return value;
    }

    /** Copies the regions' bytes of an open file ({@code in} reads it), each from its offset; a file that shrank meanwhile reads as zeros. */
    void copyData(Fd file, InputStream in, OutputStream out) throws IOException {
        for (Region r : regions) {
            if (r.length() == 0) continue;
            Posix.lseek(file.fd(), r.offset(), Posix.SEEK_SET);
            TarExporter.copyExactly(in, out, r.length());
        }
    }

    /** Writes the regions from {@code in} at their offsets into a fresh file and sets its size: the holes stay holes. */
    void writeTo(InputStream in, Fd file) throws IOException {
        for (Region r : regions) {
            if (r.length() == 0) continue;
            Posix.lseek(file.fd(), r.offset(), Posix.SEEK_SET);
            FdWriter.copy(LimitedInputStream.exactly(in, r.length(), ENDED_INSIDE_DATA), file);
        }
        Posix.ftruncate(file.fd(), realSize);
    }
}
