package dev.paddock.images;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * The files of an outer image archive ({@code docker save} output or an OCI image layout tar), unpacked into a
 * flat staging directory. Entry names are only ever used as map keys: nothing in the archive chooses a path on
 * disk. Symlinks between entries (docker save links duplicate layers) are resolved lexically within the archive.
 */
final class ArchiveContents {
    private static final int MAX_FILES = 100_000;
    private static final int MAX_LINK_HOPS = 16;

    private final Map<String, Path> files = new HashMap<>();
    private final Map<String, String> symlinks = new HashMap<>();

    private ArchiveContents() {}

    static ArchiveContents unpack(Path archive, Path stagingDir, ImageLimits limits) throws IOException {
        ArchiveContents contents = new ArchiveContents();
        long total = 0;
        try (InputStream in = LayerStreams.openTar(archive, "the image archive");
             TarArchiveInputStream tar = new TarArchiveInputStream(in)) {
            TarArchiveEntry entry;
            while ((entry = next(tar)) != null) {
                String name = RootfsPaths.normalize(entry.getName());
                if (entry.isSymbolicLink()) {
                    contents.symlinks.put(name, entry.getLinkName());
                } else if (entry.isFile() && !name.isEmpty()) {
                    if (contents.files.size() >= MAX_FILES) {
                        throw ImageErrors.tooLarge("the image archive has more than " + MAX_FILES + " files");
                    }
                    Path staged = stagingDir.resolve("f" + contents.files.size());
                    try (OutputStream out = Files.newOutputStream(staged, StandardOpenOption.CREATE_NEW)) {
                        byte[] buffer = new byte[64 * 1024];
                        int n;
                        while ((n = tar.read(buffer)) > 0) {
                            total += n;
                            if (total > limits.maxArchiveBytes()) {
                                throw ImageErrors.tooLarge("the image archive holds more than "
                                        + limits.maxArchiveBytes() + " bytes");
                            }
                            out.write(buffer, 0, n);
                        }
                    }
                    contents.files.put(name, staged);
                }
                // Directories carry no information here; anything else in an image archive is ignored.
            }
        }
        if (contents.files.isEmpty()) {
            throw ImageErrors.invalidArchive("the file is empty or not a tar archive; expected the output of "
                    + "'docker save' or an OCI image layout packed as tar");
        }
        return contents;
    }

    boolean has(String name) {
        return file(name) != null;
    }

    /** The staged file for an archive path (following archive-internal symlinks), or null. */
    Path file(String name) {
        String current = RootfsPaths.normalize(name);
        for (int hop = 0; hop <= MAX_LINK_HOPS; hop++) {
            Path staged = files.get(current);
            if (staged != null) return staged;
            String link = symlinks.get(current);
            if (link == null) return null;
            String dir = current.contains("/") ? current.substring(0, current.lastIndexOf('/') + 1) : "";
            current = collapse(link.startsWith("/") ? link : dir + link);
            if (current == null) return null;
        }
        return null;
    }

    /** Resolves '.' and '..' lexically; null when the path would leave the archive. */
    private static String collapse(String path) {
        ArrayDeque<String> parts = new ArrayDeque<>();
        for (String part : path.split("/")) {
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) {
                if (parts.isEmpty()) return null;
                parts.removeLast();
            } else {
                parts.addLast(part);
            }
        }
        return String.join("/", parts);
    }

    private static TarArchiveEntry next(TarArchiveInputStream tar) {
        try {
            return tar.getNextEntry();
        } catch (IOException | IllegalArgumentException e) {
            throw ImageErrors.invalidArchive("the image archive is not a readable tar file: " + e.getMessage());
        }
    }
}
