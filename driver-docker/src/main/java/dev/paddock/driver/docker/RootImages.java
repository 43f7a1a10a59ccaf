package dev.paddock.driver.docker;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.images.ImageLayout;
import dev.paddock.core.spi.Workspace;
import dev.paddock.workspace.HostDirWorkspace;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * The Docker images sandboxes start from, all local: nothing is ever pulled from a registry.
 * <ul>
 *   <li>the host root: a tiny image of mount points and the {@code /bin -> usr/bin} style links, over which the
 *       host's /usr and the reduced /etc are mounted;</li>
 *   <li>a Paddock image (a root filesystem directory of the images module), imported as a tar stream and tagged
 *       with a fingerprint of its tree, so it is imported once per content;</li>
 *   <li>any image the engine already has, by its reference.</li>
 * </ul>
 */
final class RootImages {
    static final String HOST_ROOT_REPO = "paddock-host-root";
    static final String ROOTFS_REPO = "paddock-rootfs";
    private static final List<String> DIRS = List.of("usr", "etc", "workspace", "tmp", "proc", "dev", "sys", "run", "mnt", "mnt/session",
            "mnt/session/outputs", "root");
    private static final List<String> LINKS = List.of("bin", "sbin", "lib", "lib64");

    /** Where a sandbox's root comes from. */
    sealed interface Root {
        String imageRef();

        record Host(String imageRef) implements Root {}

        /** A Paddock image's root filesystem, imported; {@code rootfs} is its directory on the host. */
        record Paddock(String imageRef, Path rootfs) implements Root {}

        record Local(String imageRef) implements Root {}
    }

    private final DockerEngine engine;
    private final Path dataDir;

    RootImages(DockerEngine engine, Path dataDir) {
        this.engine = engine;
        this.dataDir = dataDir;
    }

    /** The root of a sandbox on {@code image} (null: the host root), imported into the engine where needed. */
    synchronized Root resolve(String image) {
        if (image == null) return new Root.Host(hostRoot());
        if (ImageLayout.isValidName(image)) {
            Path rootfs = ImageLayout.inDataDir(dataDir).rootfs(image);
            if (Files.isDirectory(rootfs, LinkOption.NOFOLLOW_LINKS)) return new Root.Paddock(imported(rootfs), rootfs);
        }
        Optional<String> local = engine.image(image).map(i -> i.path("Id").asString());
        if (local.isPresent()) return new Root.Local(local.get());
        throw new PaddockException(ErrorCode.IMAGE_NOT_FOUND, "image '" + image + "' is neither a Paddock image (no root filesystem at "
                + (ImageLayout.isValidName(image) ? ImageLayout.inDataDir(dataDir).rootfs(image) : "a path for that name")
                + ") nor an image the Docker engine has; build or import it (the docker driver never pulls)");
    }

    private String hostRoot() {
        byte[] tar = hostRootTar();
        String ref = HOST_ROOT_REPO + ":" + sha256(tar).substring(0, 16);
        if (engine.image(ref).isEmpty()) engine.importImage(HOST_ROOT_REPO, ref.substring(ref.indexOf(':') + 1), out -> out.write(tar));
        return ref;
    }

    private String imported(Path rootfs) {
        String tag = fingerprint(rootfs);
        String ref = ROOTFS_REPO + ":" + tag;
        if (engine.image(ref).isEmpty()) {
            // exported like a workspace: no host owners (everything root's), symlinks kept, devices and sockets skipped
            HostDirWorkspace tree = new HostDirWorkspace(rootfs, Workspace.ROOT, 0, 0);
            engine.importImage(ROOTFS_REPO, tag, out -> tree.exportTar(Workspace.ROOT, out));
        }
        return ref;
    }

    static byte[] hostRootTar() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (TarArchiveOutputStream tar = new TarArchiveOutputStream(bytes, "UTF-8")) {
            for (String d : DIRS) {
                TarArchiveEntry e = new TarArchiveEntry(d + "/", TarConstants.LF_DIR);
                e.setMode(d.equals("tmp") ? 01777 : 0755);
                e.setModTime(0);
                tar.putArchiveEntry(e);
                tar.closeArchiveEntry();
            }
            for (String l : LINKS) {
                TarArchiveEntry e = new TarArchiveEntry(l, TarConstants.LF_SYMLINK);
                e.setLinkName("usr/" + l);
                e.setMode(0777);
                e.setModTime(0);
                tar.putArchiveEntry(e);
                tar.closeArchiveEntry();
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return bytes.toByteArray();
    }

    /** Paths, types, modes, sizes and modification times of the tree: a changed file gives a new tag. */
    static String fingerprint(Path rootfs) {
        try (Stream<Path> tree = Files.walk(rootfs)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (Path p : tree.sorted().toList()) {
                BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                Object mode = Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
                String link = a.isSymbolicLink() ? Files.readSymbolicLink(p).toString() : "";
                md.update((rootfs.relativize(p) + "|" + mode + "|" + a.size() + "|" + a.lastModifiedTime().toMillis() + "|" + link + "\n")
                        .getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(md.digest()).substring(0, 16);
        } catch (IOException | NoSuchAlgorithmException e) {
            throw PaddockException.internal("cannot read the image at " + rootfs + ": " + e.getMessage(), e);
        }
    }

    private static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
