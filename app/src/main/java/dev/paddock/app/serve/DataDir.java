package dev.paddock.app.serve;

import dev.paddock.app.cli.DefaultDataDir;
import dev.paddock.core.Ids;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The data directory of one server, held under an exclusive lock for as long as the server runs so that two
 * servers never share one SQLite file and one set of sandboxes. Also owns the small files clients read:
 * {@code admin.key} (0600) and {@code paddock.url}.
 */
public final class DataDir implements AutoCloseable {
    public static final String LOCK_FILE = "paddock.lock";
    public static final String ADMIN_KEY_FILE = "admin.key";
    public static final String URL_FILE = "paddock.url";
    public static final String DB_FILE = "paddock.db";
    public static final String NODE_ID_FILE = "node.id";

    private final Path root;
    private final FileChannel channel;
    private final FileLock lock;

    private DataDir(Path root, FileChannel channel, FileLock lock) {
        this.root = root;
        this.channel = channel;
        this.lock = lock;
    }

    /** Where the data directory goes when none is configured and the home directory is closed to other users. */
    public static final Path SYSTEM_DEFAULT = DefaultDataDir.SYSTEM_DEFAULT;

    /** The data directory when none is configured ({@link DefaultDataDir}). */
    public static Path defaultFor(Path home) {
        return DefaultDataDir.of(home);
    }

    /** Creates the directory (0700) when missing and takes its lock; refuses when another server holds it. */
    public static DataDir open(Path root) {
        Path dir = root.toAbsolutePath().normalize();
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir);
                Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            } else {
                closeToOthers(dir);
            }
        } catch (AccessDeniedException e) {
            throw new StartupException("cannot create the data directory " + dir + ": permission denied; pick another with --data-dir");
        } catch (IOException e) {
            throw new StartupException("cannot create the data directory " + dir + ": " + e.getMessage());
        }
        FileChannel ch;
        try {
            ch = FileChannel.open(dir.resolve(LOCK_FILE), Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (IOException e) {
            throw new StartupException("cannot open " + dir.resolve(LOCK_FILE) + ": " + e.getMessage());
        }
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        } catch (IOException e) {
            closeQuietly(ch);
            throw new StartupException("cannot lock " + dir.resolve(LOCK_FILE) + ": " + e.getMessage());
        }
        if (lock == null) {
            closeQuietly(ch);
            throw new StartupException("another Paddock server is already using the data directory " + dir
                    + "; stop it first or start this one with another --data-dir");
        }
        try {
            ch.truncate(0);
            ch.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)));
        } catch (IOException ignored) {
            // the pid is only a hint for an operator; the lock itself is what counts
        }
        return new DataDir(dir, ch, lock);
    }

    public Path root() { return root; }

    /**
     * Entries of the data directory that sandbox uids must reach: the init binary, the shared {@code /etc} entries,
     * images, and the sandboxes' own directories and egress sockets (each sandbox's part belongs to its own uid,
     * mode 0700, or is passable only). Everything else is the server's alone.
     */
    public static final Set<String> SHARED = Set.of("bin", "etc", "images", "sandboxes", "egress");
    /** Private directories made up front, so that one created later by a component never starts out open. */
    private static final List<String> PRIVATE_DIRS = List.of("checkpoints", "packages");

    /**
     * Closes everything of the data directory but {@link #SHARED} to other users: directories 0700, files 0600 (a
     * closed directory hides what is inside it, whatever its mode). The directory itself may be passed (0711) but
     * not listed. Call once every component has made its files.
     */
    public void lockDown() {
        try {
            closeToOthers(root);
            for (String d : PRIVATE_DIRS) {
                Path p = root.resolve(d);
                if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectory(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                }
            }
            try (var entries = Files.list(root)) {
                for (Path p : entries.toList()) {
                    if (SHARED.contains(p.getFileName().toString()) || Files.isSymbolicLink(p)) continue;
                    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
                            ? "rwx------" : "rw-------"));
                }
            }
        } catch (IOException e) {
            throw new StartupException("cannot close the data directory " + root + " to other users: " + e.getMessage());
        }
    }

    /** Others (sandbox uids) may pass through the directory, never list or change it. */
    private static void closeToOthers(Path dir) throws IOException {
        var mode = Files.getPosixFilePermissions(dir);
        var want = EnumSet.copyOf(mode);
        want.removeAll(Set.of(PosixFilePermission.GROUP_READ, PosixFilePermission.GROUP_WRITE,
                PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_WRITE));
        if (!want.equals(mode)) Files.setPosixFilePermissions(dir, want);
    }

    public Path database() { return root.resolve(DB_FILE); }

    /**
     * Creates the SQLite file readable by the owner only before the store opens it: it holds sandbox environments,
     * which may carry secrets. SQLite gives its -wal and -shm files the same mode as the database.
     */
    public Path privateDatabase() {
        Path db = database();
        try {
            if (!Files.exists(db)) {
                Files.createFile(db, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.setPosixFilePermissions(db, PosixFilePermissions.fromString("rw-------"));
            }
        } catch (IOException e) {
            throw new StartupException("cannot prepare " + db + ": " + e.getMessage());
        }
        return db;
    }

    public Path adminKeyFile() { return root.resolve(ADMIN_KEY_FILE); }

    /** Writes the admin key readable by the owner only; the file never exists with wider permissions. */
    public void writeAdminKey(String secret) {
        writePrivate(adminKeyFile(), secret + "\n");
    }

    /** Records where the server listens, so local clients find it without flags. */
    public void writeUrl(String url) {
        writePrivate(root.resolve(URL_FILE), url + "\n");
    }

    /**
     * This data directory's node id (servers sharing a PostgreSQL store are nodes): made once and kept in
     * {@code node.id}, so a restarted server is the same node and takes its own sandboxes back.
     */
    public String nodeId() {
        Path file = root.resolve(NODE_ID_FILE);
        try {
            if (Files.exists(file)) {
                String id = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!id.matches("node_[A-Za-z0-9]{1,58}")) throw new StartupException(file + " does not hold a node id; remove it to make a new one");
                return id;
            }
        } catch (IOException e) {
            throw new StartupException("cannot read " + file + ": " + e.getMessage());
        }
        String id = Ids.newId("node");
        writePrivate(file, id + "\n");
        return id;
    }

    private void writePrivate(Path target, String content) {
        try {
            Path tmp = Files.createTempFile(root, "." + target.getFileName(), ".tmp",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(tmp, content, StandardCharsets.UTF_8);
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new StartupException("cannot write " + target + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        try {
            Files.deleteIfExists(root.resolve(URL_FILE));
        } catch (IOException ignored) {
            // a stale URL file only makes a client try the wrong port and say so
        }
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel below releases it as well
        }
        closeQuietly(channel);
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing useful to do
        }
    }
}
