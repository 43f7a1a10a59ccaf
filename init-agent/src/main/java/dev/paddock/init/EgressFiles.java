package dev.paddock.init;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.EgressAttachment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;

/**
 * What a sandbox with egress mounts: the proxy's socket directory, handed to the sandbox's uid (0700; the proxy
 * gives each socket it creates there the directory's owner), and the CA bundle the sandbox trusts: the host's
 * system bundle plus the installation CA, written to {@code filesDir}. The image's own bundle is never read: a
 * hostile image could make it a symlink to a host file.
 */
public record EgressFiles(Path socketDir, String socketName, Path caBundle, Map<String, String> env) {
    static final Path HOST_BUNDLE = Path.of("/etc/ssl/certs/ca-certificates.crt");
    private static final String BUNDLE_NAME = "ca-certificates.crt";

    public EgressFiles {
        env = Map.copyOf(env);
    }

    public static EgressFiles prepare(EgressAttachment attachment, Path filesDir, int uid) {
        EgressFiles files = of(attachment, filesDir);
        files.write(attachment, uid);
        return files;
    }

    /** Where {@link #write} puts the files for {@code attachment}, checked, with nothing written yet. */
    public static EgressFiles of(EgressAttachment attachment, Path filesDir) {
        Path dir = Path.of(attachment.socketDir());
        if (!dir.isAbsolute() || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw PaddockException.internal("the egress socket directory " + dir + " is missing or not a directory", null);
        }
        String name = attachment.socketName();
        if (name == null || name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
            throw PaddockException.internal("invalid egress socket name '" + name + "'", null);
        }
        return new EgressFiles(dir, name, filesDir.resolve(BUNDLE_NAME), attachment.env());
    }

    /** Hands the socket directory to {@code uid} and writes the CA bundle. */
    public void write(EgressAttachment attachment, int uid) {
        Path dir = socketDir, filesDir = caBundle.getParent();
        try {
            Path socket = dir.resolve(socketName);
            chown(dir, uid);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                if (Files.isSymbolicLink(socket)) throw PaddockException.internal("egress socket " + socket + " is a symlink; refusing it", null);
                chown(socket, uid);
                Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
            }
            Files.createDirectories(filesDir);
            Files.setPosixFilePermissions(filesDir, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path bundle = caBundle;
            StringBuilder text = new StringBuilder();
            if (Files.isRegularFile(HOST_BUNDLE)) {
                text.append(Files.readString(HOST_BUNDLE, StandardCharsets.UTF_8));
                if (!text.isEmpty() && text.charAt(text.length() - 1) != '\n') text.append('\n');
            }
            if (attachment.caCertificatePem() != null) text.append("# Paddock egress CA (TLS interception for credential hosts)\n").append(attachment.caCertificatePem());
            Files.writeString(bundle, text, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(bundle, PosixFilePermissions.fromString("rw-r--r--"));
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare the egress files in " + filesDir + ": " + e.getMessage(), e);
        }
    }

    /** Removes what {@link #prepare} wrote to {@code filesDir}; the socket directory belongs to the egress proxy. */
    public static void delete(Path filesDir) {
        SandboxEtc.delete(filesDir);
    }

    private static void chown(Path p, int uid) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
    }
}
