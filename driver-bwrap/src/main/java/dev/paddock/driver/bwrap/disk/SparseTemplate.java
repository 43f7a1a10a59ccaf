package dev.paddock.driver.bwrap.disk;

import dev.paddock.workspace.NativeCall;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * An empty filesystem image that is mostly holes, copied sparsely: its data extents are found once (SEEK_DATA and
 * SEEK_HOLE) and each copy writes only those, then sets the length. This is what {@code cp --sparse=always} does, in
 * the server's process instead of a new one per sandbox.
 */
final class SparseTemplate {
    private record Extent(long offset, long length) {}

    private final Path file;
    private final long size;
    private final List<Extent> extents;

    private SparseTemplate(Path file, long size, List<Extent> extents) {
        this.file = file;
        this.size = size;
        this.extents = extents;
    }

    static SparseTemplate of(Path file) throws IOException {
        int fd = Syscalls.open(file.toString(), Syscalls.O_RDONLY);
        try {
            List<Extent> extents = new ArrayList<>();
            long size;
            try (FileChannel ch = FileChannel.open(file)) {
                size = ch.size();
            }
            for (long data = Syscalls.seek(fd, 0, Syscalls.SEEK_DATA); data >= 0 && data < size; ) {
                long hole = Syscalls.seek(fd, data, Syscalls.SEEK_HOLE); // end of file counts as a hole
                extents.add(new Extent(data, hole - data));
                data = Syscalls.seek(fd, hole, Syscalls.SEEK_DATA);
            }
            return new SparseTemplate(file, size, List.copyOf(extents));
        } finally {
            NativeCall.close(fd);
        }
    }

    /** Writes a new file at {@code target} (which must not exist) with this template's contents, holes kept. */
    void copyTo(Path target) throws IOException {
        try (FileChannel from = FileChannel.open(file);
             FileChannel to = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
             RandomAccessFile length = new RandomAccessFile(target.toFile(), "rw")) {
            for (Extent e : extents) {
                to.position(e.offset());
                for (long done = 0; done < e.length(); ) {
                    done += from.transferTo(e.offset() + done, e.length() - done, to);
                }
            }
            length.setLength(size); // ftruncate: the tail past the last extent stays a hole
        }
    }
}
