package dev.paddock.images;

import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies OCI / docker image layers, in order, onto one rootfs directory.
 *
 * <p>Every layer is treated as hostile: names that are absolute or contain {@code ..} are refused, writes whose
 * parent is a symlink are refused (whether the link came from this layer or an earlier one), hard links must point
 * at a regular file already inside the rootfs, device nodes and FIFOs are skipped, and setuid/setgid/sticky bits
 * are dropped. Whiteouts follow the OCI image spec: {@code .wh.<name>} removes {@code <name>} from lower layers and
 * {@code .wh..wh..opq} hides everything the lower layers put in that directory.
 */
final class LayerApplier {
    private static final Logger log = LoggerFactory.getLogger(LayerApplier.class);
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final String WHITEOUT_PREFIX = ".wh.";
    private static final String OPAQUE_MARKER = ".wh..wh..opq";
    private static final int OWNER_RWX = 0700;

    private final RootfsPaths paths;
    private final UnpackBudget budget;
    // Directory modes and times are applied at the end: later entries still need to write into them.
    private final Map<String, TarArchiveEntry> directories = new HashMap<>();
    private Set<String> writtenInLayer = new HashSet<>();
    private int skippedSpecialFiles;

    LayerApplier(Path rootfs, UnpackBudget budget) {
        this.paths = new RootfsPaths(rootfs);
        this.budget = budget;
    }

    /** Applies one uncompressed layer tar. */
    void apply(InputStream layerTar) throws IOException {
        writtenInLayer = new HashSet<>();
        TarArchiveInputStream tar = new TarArchiveInputStream(layerTar);
        TarArchiveEntry entry;
        while ((entry = nextEntry(tar)) != null) {
            budget.addEntry();
            applyEntry(entry, tar);
        }
    }

    /** Sets the final directory modes and times; call once after the last layer. */
    void finish() throws IOException {
        for (Map.Entry<String, TarArchiveEntry> dir : directories.entrySet()) {
            Path path = paths.resolve(dir.getKey(), dir.getKey(), false);
            BasicFileAttributes attrs = path == null ? null : RootfsPaths.lstat(path);
            if (attrs == null || !attrs.isDirectory()) continue; // removed or replaced by a later layer
            Files.setPosixFilePermissions(path, RootfsTrees.permissions(dir.getValue().getMode()));
            setModifiedTime(path, dir.getValue());
        }
        if (skippedSpecialFiles > 0) {
            log.info("skipped {} device nodes / FIFOs while importing {}", skippedSpecialFiles, paths.root());
        }
    }

    private static TarArchiveEntry nextEntry(TarArchiveInputStream tar) throws IOException {
        try {
            return tar.getNextEntry();
        } catch (IOException | IllegalArgumentException e) {
            throw ImageErrors.invalidArchive("a layer is not a readable tar archive: " + e.getMessage());
        }
    }

    private void applyEntry(TarArchiveEntry entry, InputStream content) throws IOException {
        String name = entry.getName();
        String relative = RootfsPaths.normalize(name);
        String base = relative.substring(relative.lastIndexOf('/') + 1);
        String parent = relative.contains("/") ? relative.substring(0, relative.lastIndexOf('/')) : "";

        if (base.equals(OPAQUE_MARKER)) {
            applyOpaque(name, parent);
        } else if (base.startsWith(WHITEOUT_PREFIX)) {
            applyWhiteout(name, parent, base.substring(WHITEOUT_PREFIX.length()));
        } else if (relative.isEmpty()) {
            return; // the root directory entry ("./"): the rootfs root keeps its own mode
        } else if (entry.isDirectory()) {
            writeDirectory(name, relative, entry);
        } else if (entry.isSymbolicLink()) {
            writeSymlink(name, relative, entry);
        } else if (entry.isLink()) {
            writeHardLink(name, relative, entry);
        } else if (entry.isCharacterDevice() || entry.isBlockDevice() || entry.isFIFO()) {
            skippedSpecialFiles++; // bwrap provides /dev; device nodes from an image are never trusted
            return;
        } else if (entry.isFile()) {
            writeFile(name, relative, entry, content);
        } else {
            skippedSpecialFiles++;
            return;
        }
        writtenInLayer.add(relative);
    }

    private void applyOpaque(String name, String parentRelative) throws IOException {
        Path dir = paths.resolve(name, parentRelative, true);
        BasicFileAttributes attrs = RootfsPaths.lstat(dir);
        if (attrs == null) {
            Files.createDirectory(dir);
            return;
        }
        if (!attrs.isDirectory()) throw ImageErrors.unsafeEntry(name, "opaque marker inside a non-directory");
        try (var children = Files.list(dir)) {
            for (Path child : children.toList()) {
                String childRelative = parentRelative.isEmpty()
                        ? child.getFileName().toString()
                        : parentRelative + "/" + child.getFileName();
                if (!writtenInLayer.contains(childRelative)) RootfsTrees.deleteRecursively(child);
            }
        }
    }

    private void applyWhiteout(String name, String parentRelative, String hidden) throws IOException {
        if (hidden.isEmpty() || hidden.equals(".") || hidden.equals("..") || hidden.contains("/")) {
            throw ImageErrors.unsafeEntry(name, "whiteout for an invalid name");
        }
        Path hiddenPath = paths.resolve(name, parentRelative.isEmpty() ? hidden : parentRelative + "/" + hidden, false);
        if (hiddenPath == null) return; // parent missing: nothing to hide
        RootfsTrees.deleteRecursively(hiddenPath);
    }

    private void writeDirectory(String name, String relative, TarArchiveEntry entry) throws IOException {
        Path target = paths.resolve(name, relative, true);
        BasicFileAttributes existing = RootfsPaths.lstat(target);
        if (existing != null && !existing.isDirectory()) {
            Files.delete(target); // a file or symlink replaced by a directory: unlink, never follow
            existing = null;
        }
        if (existing == null) Files.createDirectory(target);
        Files.setPosixFilePermissions(target, RootfsTrees.permissions(entry.getMode() | OWNER_RWX));
        directories.put(relative, entry);
    }

    private void writeFile(String name, String relative, TarArchiveEntry entry, InputStream content)
            throws IOException {
        Path target = replaceable(name, relative);
        // CREATE_NEW is O_EXCL: it fails on any existing name, including a dangling symlink.
        try (OutputStream out = Files.newOutputStream(target,
                StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
            byte[] buffer = new byte[64 * 1024];
            int n;
            while ((n = content.read(buffer)) > 0) {
                budget.addBytes(n);
                out.write(buffer, 0, n);
            }
        }
        Files.setPosixFilePermissions(target, RootfsTrees.permissions(entry.getMode()));
        setModifiedTime(target, entry);
    }

    private void writeSymlink(String name, String relative, TarArchiveEntry entry) throws IOException {
        String linkTarget = entry.getLinkName();
        if (linkTarget == null || linkTarget.isEmpty() || linkTarget.indexOf('\0') >= 0) {
            throw ImageErrors.unsafeEntry(name, "symbolic link with an empty or invalid target");
        }
        Path target = replaceable(name, relative);
        // The link text is stored as-is: it is only ever resolved inside the sandbox, where the rootfs is "/".
        Files.createSymbolicLink(target, target.getFileSystem().getPath(linkTarget));
    }

    private void writeHardLink(String name, String relative, TarArchiveEntry entry) throws IOException {
        String linkName = entry.getLinkName();
        String linkRelative;
        try {
            linkRelative = RootfsPaths.normalize(linkName);
        } catch (PaddockException e) {
            throw ImageErrors.unsafeEntry(name, "hard link target '" + Text.clip(linkName, 200)
                    + "' is outside the image");
        }
        if (linkRelative.isEmpty() || linkRelative.equals(relative)) {
            throw ImageErrors.unsafeEntry(name, "hard link to itself or to the root");
        }
        Path existing = paths.resolve(name, linkRelative, false);
        BasicFileAttributes attrs = existing == null ? null : RootfsPaths.lstat(existing);
        if (attrs == null || !attrs.isRegularFile()) {
            throw ImageErrors.unsafeEntry(name, "hard link target '" + Text.clip(linkName, 200)
                    + "' is not a regular file already in the image");
        }
        Path target = replaceable(name, relative);
        Files.createLink(target, existing);
    }

    /** Resolves the entry's path and removes whatever a lower entry left there, without following links. */
    private Path replaceable(String name, String relative) throws IOException {
        Path target = paths.resolve(name, relative, true);
        BasicFileAttributes existing = RootfsPaths.lstat(target);
        if (existing != null) {
            if (existing.isDirectory()) {
                RootfsTrees.deleteRecursively(target);
            } else {
                Files.delete(target);
            }
        }
        return target;
    }

    private static void setModifiedTime(Path path, TarArchiveEntry entry) {
        try {
            FileTime time = FileTime.from(entry.getLastModifiedTime().toInstant());
            Files.getFileAttributeView(path, BasicFileAttributeView.class, NOFOLLOW).setTimes(time, null, null);
        } catch (IOException | RuntimeException e) {
            // Times are cosmetic; a failure here must not fail the import.
        }
    }
}
