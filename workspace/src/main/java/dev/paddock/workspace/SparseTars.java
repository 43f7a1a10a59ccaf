package dev.paddock.workspace;

import dev.paddock.core.LimitedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.channels.Channels;
import java.nio.file.Path;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * Reading the archives Paddock writes outside a workspace (the CLI unpacking a download): sparse files come as GNU
 * "PAX 1.0" sparse entries of any size, and are written back with their holes.
 */
public final class SparseTars {
    private SparseTars() {}

    /** A tar reader that also reads sparse entries of 2 GiB and more. */
    public static TarArchiveInputStream reader(InputStream in) {
        return new SparseTarInputStream(in);
    }

    /** The file's name when {@code e} is a sparse entry, else null; sparse formats other than PAX 1.0 are refused. */
    public static String sparseName(TarArchiveEntry e) {
        return TarImporter.sparseName(e);
    }

    /** Writes the sparse entry being read from {@code tar} to {@code dest}: its data regions at their offsets, holes left as holes. */
    public static void extract(TarArchiveInputStream tar, TarArchiveEntry e, Path dest) throws IOException {
        long realSize = TarImporter.sparseRealSize(e);
        SparseMap map = SparseMap.read(tar, e.getSize(), realSize);
        try (RandomAccessFile file = new RandomAccessFile(dest.toFile(), "rw")) {
            file.setLength(0);
            OutputStream out = Channels.newOutputStream(file.getChannel()); // writes at the file's pointer, which seek moves
            for (SparseMap.Region r : map.regions()) {
                file.seek(r.offset());
                LimitedInputStream.exactly(tar, r.length(), SparseMap.ENDED_INSIDE_DATA).transferTo(out);
            }
            file.setLength(realSize);
        }
    }
}
