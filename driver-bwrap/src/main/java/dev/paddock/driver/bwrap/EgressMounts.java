package dev.paddock.driver.bwrap;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.EgressAttachment;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Prepares what a sandbox with egress mounts: hands the proxy's socket directory to the sandbox's uid (0700; the
 * proxy gives each socket it creates there the directory's owner) and writes the CA bundle the sandbox trusts:
 * the host's system bundle plus the installation CA. The image's own bundle is never read: a hostile image could
 * make it a symlink to a host file.
 */
final class EgressMounts {
    static final Path HOST_BUNDLE = Path.of("/etc/ssl/certs/ca-certificates.crt");
    private static final String BUNDLE_NAME = "ca-certificates.crt";

    private EgressMounts() {}

    static BwrapArgs.Egress prepare(EgressAttachment attachment, SandboxPaths paths, int uid, boolean overSystemBundle) {
        Path dir = Path.of(attachment.socketDir());
        if (!dir.isAbsolute() || !Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw PaddockException.internal("the egress socket directory " + dir + " is missing or not a directory", null);
        }
        String name = attachment.socketName();
        if (name == null || name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
            throw PaddockException.internal("invalid egress socket name '" + name + "'", null);
        }
        try {
            Path socket = dir.resolve(name);
            chown(dir, uid);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            if (Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
                if (Files.isSymbolicLink(socket)) throw PaddockException.internal("egress socket " + socket + " is a symlink; refusing it", null);
                chown(socket, uid);
                Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
            }
            Path files = paths.egressFiles();
            Files.createDirectories(files);
            Files.setPosixFilePermissions(files, PosixFilePermissions.fromString("rwxr-xr-x"));
            Path bundle = files.resolve(BUNDLE_NAME);
            StringBuilder text = new StringBuilder();
            if (Files.isRegularFile(HOST_BUNDLE)) {
                text.append(Files.readString(HOST_BUNDLE, StandardCharsets.UTF_8));
                if (!text.isEmpty() && text.charAt(text.length() - 1) != '\n') text.append('\n');
            }
            if (attachment.caCertificatePem() != null) text.append("# Paddock egress CA (TLS interception for credential hosts)\n").append(attachment.caCertificatePem());
            Files.writeString(bundle, text, StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(bundle, PosixFilePermissions.fromString("rw-r--r--"));
            return new BwrapArgs.Egress(dir, name, bundle, overSystemBundle, attachment.env());
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare the egress mounts of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
    }

    static void delete(SandboxPaths paths) {
        SandboxEtc.delete(paths.egressFiles());
    }

    private static void chown(Path p, int uid) throws IOException {
        Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
    }
}
