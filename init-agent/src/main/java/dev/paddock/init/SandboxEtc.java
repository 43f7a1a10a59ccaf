package dev.paddock.init;

import dev.paddock.core.FileTrees;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The /etc of a sandbox on the host's root, with only what common tools need: no host users, groups, host names,
 * service configuration or secrets. Two read-only mounts, so it costs what binding the whole host /etc cost:
 * <ul>
 *   <li>a shared base, {@code <dataDir>/etc/base-<hash>}: copies of the few host entries listed in {@link #FROM_HOST}
 *       (loader cache, alternatives, CA certificates, ...), made once per host state, plus symlinks such as
 *       {@code passwd -> paddock/passwd};</li>
 *   <li>the sandbox's own {@code <sandboxDir>/etc}, mounted at {@code /etc/paddock}: passwd and group with its one
 *       user, and hosts with its name.</li>
 * </ul>
 */
public final class SandboxEtc {
    /** Host entries copied into the base: loader cache, alternatives, CA certificates, locale and tool defaults. */
    static final List<String> FROM_HOST = List.of(
            "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives",
            "ssl/certs", "ssl/openssl.cnf", "ca-certificates", "localtime", "timezone",
            "os-release", "debian_version", "protocols", "services", "mime.types", "shells",
            "profile", "bash.bashrc", "inputrc", "perl", "python3", "terminfo", "gai.conf");
    static final List<String> PER_SANDBOX = List.of("passwd", "group", "hosts");
    /** Files only: no name service module that would look for a host daemon. */
    static final String NSSWITCH = "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\n"
            + "protocols: files\nservices: files\nethers: files\nrpc: files\n";
    /** Where the per-sandbox directory is mounted inside /etc. */
    public static final String OWN_DIR = "paddock";

    private static final Set<PosixFilePermission> DIR_MODE = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-r--r--");

    private SandboxEtc() {}

    /**
     * The base directory for the host's current /etc entries, built when missing. Its name hashes what it copies
     * (paths, sizes, modification times), so a host update (a new loader cache) gives a new base; sandboxes still
     * running keep theirs.
     */
    public static Path base(Path hostEtc, Path etcRoot) {
        Path base = etcRoot.resolve("base-" + fingerprint(hostEtc));
        if (Files.isDirectory(base, LinkOption.NOFOLLOW_LINKS)) return base;
        try {
            Files.createDirectories(etcRoot);
            Files.setPosixFilePermissions(etcRoot, PosixFilePermissions.fromString("rwx--x--x"));
            Path tmp = Files.createTempDirectory(etcRoot, ".base");
            for (String entry : FROM_HOST) {
                Path from = hostEtc.resolve(entry);
                if (Files.exists(from, LinkOption.NOFOLLOW_LINKS)) copy(from, tmp.resolve(entry));
            }
            for (String f : PER_SANDBOX) Files.createSymbolicLink(tmp.resolve(f), Path.of(OWN_DIR, f));
            Files.createSymbolicLink(tmp.resolve("mtab"), Path.of("../proc/self/mounts"));
            Files.writeString(tmp.resolve("nsswitch.conf"), NSSWITCH, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(tmp.resolve("nsswitch.conf"), FILE_MODE);
            Files.createDirectory(tmp.resolve(OWN_DIR));
            try (Stream<Path> tree = Files.walk(tmp)) {
                for (Path p : tree.toList()) {
                    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
            }
            try {
                Files.move(tmp, base, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException raced) {
                delete(tmp); // another driver instance built the same base first
            }
            return base;
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare the sandbox /etc under " + etcRoot + ": " + e.getMessage(), e);
        }
    }

    /** Writes the sandbox's own files into {@code dir}: its user {@code uid} and its host name. */
    public static void writeOwn(Path dir, int uid, String hostname) {
        Map<String, String> files = Map.of(
                "passwd", "root:x:0:0:root:/root:/usr/sbin/nologin\n"
                        + "sandbox:x:" + uid + ":" + uid + ":sandbox:/workspace:/bin/sh\n"
                        + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
                "group", "root:x:0:\nsandbox:x:" + uid + ":\nnogroup:x:65534:\n",
                "hosts", "127.0.0.1\tlocalhost\n127.0.1.1\t" + hostname + "\n::1\tlocalhost ip6-localhost ip6-loopback\n");
        try {
            if (Files.isSymbolicLink(dir)) throw PaddockException.internal(dir + " is a symlink; refusing to use it", null);
            Files.createDirectories(dir);
            // bwrap mounts this as the sandbox uid: readable by all, writable by root only (set after the umask)
            Files.setPosixFilePermissions(dir, DIR_MODE);
            for (Map.Entry<String, String> f : files.entrySet()) {
                // the sandbox is not running yet: plain writes, nobody reads these before bwrap mounts them
                Path file = dir.resolve(f.getKey());
                Files.writeString(file, f.getValue(), StandardCharsets.UTF_8, LinkOption.NOFOLLOW_LINKS,
                        StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
                Files.setPosixFilePermissions(file, FILE_MODE);
            }
        } catch (IOException e) {
            throw PaddockException.internal("cannot write the /etc files of the sandbox into " + dir + ": " + e.getMessage(), e);
        }
    }

    public static void delete(Path dir) {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) return;
        try {
            FileTrees.delete(dir);
        } catch (IOException | UncheckedIOException ignored) {
            // rewritten on the next create of this id
        }
    }

    /** Copies a file, a symlink (as a link) or a directory tree, keeping modes. */
    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to.getParent());
        try (Stream<Path> tree = Files.walk(from)) {
            for (Path p : tree.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isSymbolicLink(p)) Files.createSymbolicLink(target, Files.readSymbolicLink(p));
                else if (Files.isDirectory(p)) Files.createDirectories(target);
                else if (Files.isReadable(p)) Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
            }
        }
    }

    private static String fingerprint(Path hostEtc) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (String entry : FROM_HOST) {
                Path p = hostEtc.resolve(entry);
                if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) continue;
                try (Stream<Path> tree = Files.walk(p)) {
                    for (Path f : tree.sorted().toList()) {
                        var a = Files.readAttributes(f, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                        md.update((f + "|" + a.size() + "|" + a.lastModifiedTime().toMillis() + "\n").getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
            return HexFormat.of().formatHex(md.digest()).substring(0, 16);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw PaddockException.internal("cannot read the host's /etc: " + e.getMessage(), e);
        }
    }
}
