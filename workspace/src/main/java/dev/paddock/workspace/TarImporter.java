package dev.paddock.workspace;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * Unpacks a tar archive under a workspace directory. Every entry is placed with the same race-free resolver as
 * the other file operations, so an entry cannot land outside the target directory: not by an absolute name, not
 * by "..", and not through a symlink the archive (or the sandbox) created earlier. Devices and fifos are refused;
 * total size and entry count are capped. Symlink entries are created as they are (the sandbox could create the
 * same links itself); we never follow one out of the workspace.
 */
final class TarImporter {
    private final Resolver resolver;
    private final Ownership owner;
    private final TarLimits limits;

    TarImporter(Resolver resolver, Ownership owner, TarLimits limits) {
        this.resolver = resolver;
        this.owner = owner;
        this.limits = limits;
    }

    private record DirectoryTimes(String sandboxPath, int mode, Instant modifiedAt) {}

    /** {@code tmp}: where temporary entries are made before being renamed into place; null for the target directory. */
    /** Unpacks into {@code path}; each file is as durable as {@code durability} says, the rest is the caller's to sync. */
    void unpack(Fd root, String path, InputStream in, Fd tmp, AtomicFiles.Durability durability) {
        List<String> base = targetDirectory(root, path);
        List<DirectoryTimes> directories = new ArrayList<>();
        NonZeroWatch read = new NonZeroWatch(in);
        TarArchiveInputStream tar = new SparseTarInputStream(read);
        long entries = 0;
        long bytes = 0;
        try {
            for (TarArchiveEntry entry; (entry = tar.getNextEntry()) != null; ) {
                if (++entries > limits.maxEntries()) {
                    throw new PaddockException(ErrorCode.TAR_TOO_MANY_ENTRIES,
                            "the archive has more than " + limits.maxEntries() + " entries; split it or raise the limit");
                }
                String sparseName = sparseName(entry);
                List<String> relative = entryComponents(sparseName != null ? sparseName : entry.getName());
                if (relative.isEmpty()) continue;
                String target = Resolved.toSandboxPath(resolver.virtualRoot(), concat(base, relative));
                if (entry.isDirectory()) {
                    directory(root, base, entry, target);
                    directories.add(new DirectoryTimes(target, entry.getMode(), entry.getLastModifiedTime().toInstant()));
                } else if (entry.isSymbolicLink()) {
                    symlink(root, base, entry, target, tmp);
                } else if (entry.isLink()) {
                    hardLink(root, base, entry, target, tmp);
                } else if (entry.isCharacterDevice() || entry.isBlockDevice() || entry.isFIFO() || entry.isSparse()) {
                    throw unsupported(entry);
                } else if (entry.isFile()) {
                    bytes += entry.getSize();
                    if (bytes > limits.maxTotalBytes()) {
                        throw new PaddockException(ErrorCode.TAR_TOO_LARGE,
                                "the archive unpacks to more than " + limits.maxTotalBytes() + " bytes; split it or raise the limit");
                    }
                    file(root, base, entry, tar, target, tmp, sparseName != null, durability);
                } else {
                    throw unsupported(entry);
                }
            }
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.INVALID_TAR, "the archive could not be read: " + Text.clip(e.getMessage(), 200), e);
        }
        // the tar reader takes a short or unrecognised start for the end of an empty archive; an empty one is zeros
        if (entries == 0 && read.sawNonZero) {
            throw new PaddockException(ErrorCode.INVALID_TAR, "the body is not a tar archive (it has no entry and is not an empty archive's zero blocks)");
        }
        for (DirectoryTimes dir : directories.reversed()) applyDirectoryTimes(root, dir);
    }

    private List<String> targetDirectory(Fd root, String path) {
        try (Resolved target = resolver.resolve(root, path, true, true)) {
            if (target.isRoot()) return List.of();
            if (!target.exists()) resolver.createDirectory(target.dir().fd(), target.name(), path);
        }
        try (Resolved target = resolver.resolve(root, path, true, false)) {
            if (!target.exists()) throw WorkspaceErrors.notFound(path);
            if (!target.stat().isDirectory()) throw WorkspaceErrors.notADirectory(path);
            return target.components();
        }
    }

    private void directory(Fd root, List<String> base, TarArchiveEntry entry, String target) {
        try (Resolved place = place(root, base, entry, target)) {
            if (place.exists() && place.stat().isDirectory()) return;
            if (place.exists()) unlink(place, target);
            resolver.createDirectory(place.dir().fd(), place.name(), target);
        }
    }

    private void file(Fd root, List<String> base, TarArchiveEntry entry, InputStream content, String target, Fd tmp, boolean sparse,
                      AtomicFiles.Durability durability) {
        AtomicFiles.Content writer = AtomicFiles.Content.of(content);
        if (sparse) {
            long realSize = sparseRealSize(entry);
            writer = file -> SparseMap.read(content, entry.getSize(), realSize).writeTo(content, file);
        }
        try (Resolved place = place(root, base, entry, target)) {
            if (place.exists() && place.stat().isDirectory()) throw conflict(entry, "a directory already exists there");
            AtomicFiles.replaceFile(tmp, place.dir(), place.name(), writer, entry.getMode(),
                    entry.getLastModifiedTime().toInstant(), owner, target, durability);
        }
    }

    /**
     * The real name of a GNU "PAX 1.0" sparse entry (the header carries a stand-in), null for any other entry. Other
     * GNU sparse formats (0.x) are refused.
     */
    static String sparseName(TarArchiveEntry entry) {
        Map<String, String> pax = entry.getExtraPaxHeaders();
        boolean gnuSparse = pax.keySet().stream().anyMatch(k -> k.regionMatches(true, 0, "GNU.sparse.", 0, 11));
        if (!gnuSparse) return null;
        String name = pax.get("GNU.sparse.name");
        boolean mapInHeaders = entry.getSparseHeaders() != null && !entry.getSparseHeaders().isEmpty();
        if (!entry.isFile() || mapInHeaders || !"1".equals(pax.get("GNU.sparse.major")) || !"0".equals(pax.get("GNU.sparse.minor"))
                || name == null || pax.get(SparseTarInputStream.REALSIZE) == null || pax.containsKey(SparseTarInputStream.OLD_SIZE)) {
            throw unsupported(entry);
        }
        return name;
    }

    static long sparseRealSize(TarArchiveEntry entry) {
        try {
            long size = Long.parseLong(entry.getExtraPaxHeaders().get(SparseTarInputStream.REALSIZE));
            if (size >= 0) return size;
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new PaddockException(ErrorCode.TAR_ENTRY_INVALID, "sparse entry '" + Text.clip(entry.getName(), 200) + "' has an unusable real size");
    }

    private void symlink(Fd root, List<String> base, TarArchiveEntry entry, String target, Fd tmp) {
        String linkName = entry.getLinkName();
        if (linkName.isEmpty() || linkName.indexOf('\0') >= 0 || linkName.length() > SandboxPath.MAX_PATH_BYTES) {
            throw new PaddockException(ErrorCode.TAR_ENTRY_INVALID, "symlink entry '" + Text.clip(entry.getName(), 200) + "' has an unusable target");
        }
        try (Resolved place = place(root, base, entry, target)) {
            if (place.exists() && place.stat().isDirectory()) throw conflict(entry, "a directory already exists there");
            AtomicFiles.replaceWithSymlink(tmp, place.dir(), place.name(), linkName, entry.getLastModifiedTime().toInstant(), owner, target);
        }
    }

    private void hardLink(Fd root, List<String> base, TarArchiveEntry entry, String target, Fd tmp) {
        List<String> source = entryComponents(entry.getLinkName());
        String sourcePath = Resolved.toSandboxPath(resolver.virtualRoot(), concat(base, source));
        try (Resolved from = place(root, base, entry, sourcePath); Resolved place = place(root, base, entry, target)) {
            if (source.isEmpty() || !from.exists() || !from.stat().isRegular()) {
                throw new PaddockException(ErrorCode.TAR_ENTRY_INVALID, "hard link entry '" + Text.clip(entry.getName(), 200)
                        + "' must point to a regular file unpacked earlier from the same archive");
            }
            if (place.exists() && place.stat().isDirectory()) throw conflict(entry, "a directory already exists there");
            AtomicFiles.replaceWithHardLink(tmp, from.dir(), from.name(), place.dir(), place.name(), target);
        }
    }

    /** Resolves an entry's parent (creating directories), refusing anything that lands outside the target directory. */
    private Resolved place(Fd root, List<String> base, TarArchiveEntry entry, String target) {
        Resolved place;
        try {
            place = resolver.resolve(root, target, false, true);
        } catch (PaddockException e) {
            if ("path_outside_workspace".equals(e.code())) throw outside(entry);
            throw e;
        }
        List<String> parent = place.parentComponents();
        if (place.isRoot() || parent.size() < base.size() || !parent.subList(0, base.size()).equals(base)) {
            place.close();
            throw outside(entry);
        }
        return place;
    }

    private void applyDirectoryTimes(Fd root, DirectoryTimes dir) {
        try (Resolved place = resolver.resolve(root, dir.sandboxPath(), false, false)) {
            if (!place.exists() || !place.stat().isDirectory()) return;
            try (Fd fd = Fd.openDirectory(place.dir().fd(), place.name())) {
                Posix.fchmod(fd.fd(), dir.mode() & 01777); // sticky kept, setuid/setgid never
                Posix.setTimes(fd.fd(), dir.modifiedAt());
            }
        } catch (Errno | PaddockException e) {
            // the sandbox changed the directory meanwhile; its contents are in place, only the metadata is lost
        }
    }

    private static void unlink(Resolved place, String target) {
        try {
            Posix.unlinkat(place.dir().fd(), place.name(), 0);
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, target);
        }
    }

    /** An entry name as components; absolute names, ".." and NUL are refused outright. */
    static List<String> entryComponents(String name) {
        if (name.startsWith("/") || name.indexOf('\0') >= 0) throw outside(name);
        List<String> components = new ArrayList<>();
        for (String part : name.split("/")) {
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) throw outside(name);
            components.add(part);
        }
        return components;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static PaddockException outside(TarArchiveEntry entry) {
        return outside(entry.getName());
    }

    private static PaddockException outside(String name) {
        return new PaddockException(ErrorCode.TAR_ENTRY_OUTSIDE,
                "archive entry '" + Text.clip(name, 200) + "' would land outside the target directory (absolute name, '..' or a symlink); nothing past it was unpacked");
    }

    private static PaddockException unsupported(TarArchiveEntry entry) {
        return new PaddockException(ErrorCode.TAR_ENTRY_UNSUPPORTED, "archive entry '" + Text.clip(entry.getName(), 200)
                + "' is a device, a fifo or a sparse file in a format other than GNU tar's PAX 1.0; only files (sparse as PAX 1.0), directories and links can be unpacked");
    }

    private static PaddockException conflict(TarArchiveEntry entry, String why) {
        return new PaddockException(ErrorCode.TAR_ENTRY_CONFLICT, "archive entry '" + Text.clip(entry.getName(), 200) + "' cannot be unpacked: " + why);
    }

    /** Notes whether any byte that passed was not zero. */
    private static final class NonZeroWatch extends java.io.FilterInputStream {
        boolean sawNonZero;

        NonZeroWatch(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b > 0) sawNonZero = true;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            for (int i = off; !sawNonZero && i < off + n; i++) sawNonZero = b[i] != 0;
            return n;
        }
    }
}
