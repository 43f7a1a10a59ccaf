package dev.paddock.workspace;

import dev.paddock.core.spi.Workspace;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static dev.paddock.workspace.WorkspaceFixture.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Holes stay holes: sparse files become small GNU PAX 1.0 sparse entries and are unpacked sparse again. */
class SparseTarTest {
    private static final long GIB = 1L << 30;

    @TempDir Path base;

    @Test
    void sparseFilesRoundTripSmallAndComeBackSparse() throws Exception {
        Path from = Files.createDirectories(base.resolve("from/workspace"));
        HostDirWorkspace source = new HostDirWorkspace(from, -1, -1);
        truncate(from.resolve("hole-2g"), 2 * GIB); // `truncate -s 2G`
        truncate(from.resolve("hole-100g"), 100 * GIB); // would fill the host if written out
        Path islands = from.resolve("dir/islands.bin");
        Files.createDirectories(islands.getParent());
        try (RandomAccessFile f = new RandomAccessFile(islands.toFile(), "rw")) {
            f.setLength(3 * GIB);
            writeAt(f, 0, "start of the file");
            writeAt(f, GIB + 12345, "an island in the middle");
            writeAt(f, 3 * GIB - 5, "tail!");
        }
        Files.writeString(from.resolve("dense.txt"), "plain file");

        ByteArrayOutputStream archive = new ByteArrayOutputStream();
        source.exportTar(Workspace.ROOT, archive);
        assertThat(archive.size()).isLessThan(64 * 1024);

        Path to = Files.createDirectories(base.resolve("to/workspace"));
        HostDirWorkspace target = new HostDirWorkspace(to, Workspace.ROOT, -1, -1, TarLimits.DEFAULT, base.resolve("to/.staging"));
        target.replaceFromTar(new ByteArrayInputStream(archive.toByteArray()), Workspace.SwapGuard.NONE);

        for (String name : List.of("hole-2g", "hole-100g", "dir/islands.bin")) {
            Path restored = to.resolve(name);
            assertThat(Files.size(restored)).as(name).isEqualTo(Files.size(from.resolve(name)));
            assertThat(blocks(restored)).as(name + " is sparse again").isLessThan(1024);
            assertThat(dataHash(restored)).as(name).isEqualTo(dataHash(from.resolve(name)));
        }
        try (RandomAccessFile f = new RandomAccessFile(to.resolve("dir/islands.bin").toFile(), "r")) {
            assertThat(readAt(f, GIB + 12345, 23)).isEqualTo("an island in the middle");
            assertThat(readAt(f, 3 * GIB - 5, 5)).isEqualTo("tail!");
            assertThat(readAt(f, GIB, 4)).isEqualTo("\0\0\0\0");
        }
        assertThat(Files.readString(to.resolve("dense.txt"))).isEqualTo("plain file");
    }

    @Test
    void gnuTarReadsTheSparseEntries() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/tar")), "GNU tar is not installed");
        Path from = Files.createDirectories(base.resolve("from"));
        try (RandomAccessFile f = new RandomAccessFile(from.resolve("islands.bin").toFile(), "rw")) {
            f.setLength(3 * GIB);
            writeAt(f, GIB, "island");
        }
        Path tar = base.resolve("cp.tar");
        try (var out = Files.newOutputStream(tar)) {
            new HostDirWorkspace(from, -1, -1).exportTar(Workspace.ROOT, out);
        }
        Path out = Files.createDirectories(base.resolve("gnu"));
        Process p = new ProcessBuilder("tar", "-xf", tar.toString(), "-C", out.toString()).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(log).isZero();
        assertThat(Files.size(out.resolve("islands.bin"))).isEqualTo(3 * GIB);
        assertThat(blocks(out.resolve("islands.bin"))).isLessThan(1024);
        try (RandomAccessFile f = new RandomAccessFile(out.resolve("islands.bin").toFile(), "r")) {
            assertThat(readAt(f, GIB, 6)).isEqualTo("island");
        }
    }

    @Test
    void sparseArchivesMadeByGnuTarAreUnpackedSparse() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/tar")), "GNU tar is not installed");
        Path from = Files.createDirectories(base.resolve("from"));
        try (RandomAccessFile f = new RandomAccessFile(from.resolve("islands.bin").toFile(), "rw")) {
            f.setLength(5 * GIB);
            writeAt(f, 4 * GIB, "island");
        }
        Path tar = base.resolve("gnu.tar");
        Process p = new ProcessBuilder("tar", "--format=posix", "--sparse", "--sparse-version=1.0", "-cf", tar.toString(), "-C", from.toString(), "islands.bin")
                .redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(log).isZero();
        Path to = Files.createDirectories(base.resolve("to"));
        try (var in = Files.newInputStream(tar)) {
            new HostDirWorkspace(to, -1, -1).importTar(Workspace.ROOT, in);
        }
        assertThat(Files.size(to.resolve("islands.bin"))).isEqualTo(5 * GIB);
        assertThat(blocks(to.resolve("islands.bin"))).isLessThan(1024);
        assertThat(dataHash(to.resolve("islands.bin"))).isEqualTo(dataHash(from.resolve("islands.bin")));
    }

    @Test
    void sparseMapsThatDoNotFitTheEntryAreRefused() throws Exception {
        Path to = Files.createDirectories(base.resolve("to"));
        HostDirWorkspace target = new HostDirWorkspace(to, -1, -1);
        // the map claims 1 MiB of data, the entry holds 4 bytes
        assertRefused(() -> target.importTar(Workspace.ROOT, new ByteArrayInputStream(sparseArchive("1\n0\n1048576\n", "data", 1 << 20))),
                "content_read_failed");
        // a region past the real size
        assertRefused(() -> target.importTar(Workspace.ROOT, new ByteArrayInputStream(sparseArchive("1\n100\n4\n", "data", 10))),
                "content_read_failed");
        try (var files = Files.list(to)) {
            assertThat(files.toList()).isEmpty();
        }
    }

    private static byte[] sparseArchive(String map, String data, long realSize) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes)) {
            byte[] records = TarExporter.paxRecords(List.of(new String[] {"GNU.sparse.major", "1"}, new String[] {"GNU.sparse.minor", "0"},
                    new String[] {"GNU.sparse.name", "f"}, new String[] {"GNU.sparse.realsize", Long.toString(realSize)}));
            TarArchiveEntry x = new TarArchiveEntry("PaxHeaders.0/f", TarConstants.LF_PAX_EXTENDED_HEADER_LC);
            x.setSize(records.length);
            tar.putArchiveEntry(x);
            tar.write(records);
            tar.closeArchiveEntry();
            byte[] block = new byte[512];
            byte[] m = map.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(m, 0, block, 0, m.length);
            TarArchiveEntry e = new TarArchiveEntry("GNUSparseFile.0/f");
            e.setSize(512 + data.length());
            tar.putArchiveEntry(e);
            tar.write(block);
            tar.write(data.getBytes(StandardCharsets.US_ASCII));
            tar.closeArchiveEntry();
        }
        return bytes.toByteArray();
    }

    private static void truncate(Path p, long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
        }
    }

    private static void writeAt(RandomAccessFile f, long offset, String s) throws IOException {
        f.seek(offset);
        f.write(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static String readAt(RandomAccessFile f, long offset, int n) throws IOException {
        byte[] b = new byte[n];
        f.seek(offset);
        f.readFully(b);
        return new String(b, StandardCharsets.US_ASCII);
    }

    /** Allocated 512-byte blocks (st_blocks). */
    static long blocks(Path p) throws Exception {
        Process stat = new ProcessBuilder("stat", "-c", "%b", p.toString()).start();
        String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertThat(stat.waitFor()).isZero();
        return Long.parseLong(out);
    }

    /** A hash over the file's data regions (offset, bytes) as lseek(SEEK_DATA/SEEK_HOLE) reports them. */
    static String dataHash(Path p) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        try (Fd fd = new Fd(Posix.openat(Posix.AT_FDCWD, p.toString(), Posix.O_RDONLY, 0))) {
            long size = Files.size(p);
            SparseMap map = SparseMap.scan(fd, size);
            List<SparseMap.Region> regions = map == null ? List.of(new SparseMap.Region(0, size)) : map.regions();
            try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "r")) {
                for (SparseMap.Region r : regions) {
                    sha.update(Long.toString(r.offset()).getBytes(StandardCharsets.US_ASCII));
                    byte[] buf = new byte[(int) r.length()];
                    f.seek(r.offset());
                    f.readFully(buf);
                    sha.update(buf);
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
