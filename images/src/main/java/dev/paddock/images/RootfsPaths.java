package dev.paddock.images;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns archive entry names into paths inside a rootfs without ever following a symbolic link.
 *
 * <p>Names are checked lexically first (no absolute paths, no {@code ..}, no NUL); then every parent directory is
 * checked with lstat, so a symlink planted by an earlier entry or layer can never redirect a later write. The rootfs
 * is private to the import until it is published, so nothing else can swap a component between check and use.
 */
final class RootfsPaths {
    private static final LinkOption[] NOFOLLOW = {LinkOption.NOFOLLOW_LINKS};
    private static final int MAX_NAME_LENGTH = 4096;

    private final Path root;

    RootfsPaths(Path root) {
        this.root = root;
    }

    Path root() {
        return root;
    }

    /**
     * The clean relative form of an entry name ({@code "usr/bin/env"}), or {@code ""} for the root itself.
     * Leading {@code ./} and repeated or trailing slashes are normal in layer tars and are dropped.
     */
    static String normalize(String entryName) {
        if (entryName == null || entryName.isEmpty()) throw ImageErrors.unsafeEntry("", "empty name");
        if (entryName.length() > MAX_NAME_LENGTH) throw ImageErrors.unsafeEntry(entryName, "name is too long");
        if (entryName.indexOf('\0') >= 0) throw ImageErrors.unsafeEntry(entryName, "name contains a NUL byte");
        if (entryName.startsWith("/")) throw ImageErrors.unsafeEntry(entryName, "absolute paths are not allowed");
        List<String> parts = new ArrayList<>();
        for (String part : entryName.split("/")) {
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) throw ImageErrors.unsafeEntry(entryName, "'..' components are not allowed");
            parts.add(part);
        }
        return String.join("/", parts);
    }

    /**
     * The path for {@code relative} (already normalized) after checking that each parent is a real directory.
     * Missing parents are created when {@code createParents}; otherwise null is returned for a missing parent.
     */
    Path resolve(String entryName, String relative, boolean createParents) throws IOException {
        if (relative.isEmpty()) return root;
        String[] parts = relative.split("/");
        Path current = root;
        for (int i = 0; i < parts.length - 1; i++) {
            current = current.resolve(parts[i]);
            BasicFileAttributes attrs = lstat(current);
            if (attrs == null) {
                if (!createParents) return null;
                Files.createDirectory(current);
            } else if (attrs.isSymbolicLink()) {
                throw ImageErrors.unsafeEntry(entryName, "its parent '" + String.join("/", Arrays.copyOf(parts, i + 1))
                        + "' is a symbolic link; writing through links is not allowed");
            } else if (!attrs.isDirectory()) {
                throw ImageErrors.unsafeEntry(entryName, "its parent '" + String.join("/", Arrays.copyOf(parts, i + 1))
                        + "' is not a directory");
            }
        }
        return current.resolve(parts[parts.length - 1]);
    }

    /** lstat, or null when nothing is there. */
    static BasicFileAttributes lstat(Path p) throws IOException {
        try {
            return Files.readAttributes(p, BasicFileAttributes.class, NOFOLLOW);
        } catch (NoSuchFileException e) {
            return null;
        }
    }
}
