package dev.paddock.workspace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * A tar reader that leaves GNU "PAX 1.0" sparse entries to {@link SparseMap}. Commons Compress parses
 * {@code GNU.sparse.realsize} and {@code GNU.sparse.size} as an int, so it fails on any sparse file of 2 GiB or
 * more; this reader renames those two keys in every extended header to upper case (same length, so nothing else
 * in the archive moves) before Commons Compress parses it. The entry then arrives as a plain file whose data is the
 * sparse map and the regions, with the keys in {@link TarArchiveEntry#getExtraPaxHeaders()}.
 */
final class SparseTarInputStream extends TarArchiveInputStream {
    static final String REALSIZE = "GNU.SPARSE.REALSIZE";
    /** The 0.x formats' size key; entries that carry it are refused. */
    static final String OLD_SIZE = "GNU.SPARSE.SIZE";
    private static final int MAX_HEADER_BYTES = 8 << 20;

    private TarArchiveEntry headerEntry;
    private byte[] header;
    private int headerPos;

    SparseTarInputStream(InputStream in) {
        super(in, "UTF-8");
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        TarArchiveEntry current = getCurrentEntry();
        if (current == null || !(current.isPaxHeader() || current.isGlobalPaxHeader())) return super.read(b, off, len);
        if (current != headerEntry) {
            headerEntry = current;
            header = rename(readWhole(current.getSize()));
            headerPos = 0;
        }
        if (len == 0) return 0;
        if (headerPos >= header.length) return -1;
        int n = Math.min(len, header.length - headerPos);
        System.arraycopy(header, headerPos, b, off, n);
        headerPos += n;
        return n;
    }

    private byte[] readWhole(long size) throws IOException {
        if (size > MAX_HEADER_BYTES) throw new IOException("extended header of " + size + " bytes (at most " + MAX_HEADER_BYTES + ")");
        byte[] all = new byte[(int) size];
        int n = 0;
        while (n < all.length) {
            int r = super.read(all, n, all.length - n);
            if (r < 0) break;
            n += r;
        }
        return n == all.length ? all : Arrays.copyOf(all, n);
    }

    /** Walks the records ("<length> <key>=<value>\n") and upper-cases the two keys in place; leaves malformed data to the parser. */
    private static byte[] rename(byte[] records) {
        int pos = 0;
        while (pos < records.length) {
            int space = pos;
            long length = 0;
            while (space < records.length && records[space] >= '0' && records[space] <= '9' && length < records.length) {
                length = length * 10 + (records[space++] - '0');
            }
            if (space >= records.length || records[space] != ' ' || length <= 0 || pos + length > records.length) return records;
            int keyStart = space + 1;
            int eq = keyStart;
            while (eq < pos + length && records[eq] != '=') eq++;
            String key = new String(records, keyStart, eq - keyStart, StandardCharsets.UTF_8);
            if (key.equals("GNU.sparse.realsize") || key.equals("GNU.sparse.size")) {
                byte[] upper = key.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);
                System.arraycopy(upper, 0, records, keyStart, upper.length);
            }
            pos += (int) length;
        }
        return records;
    }
}
