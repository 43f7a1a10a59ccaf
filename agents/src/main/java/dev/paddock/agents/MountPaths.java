package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.Workspace;

/**
 * Where a session resource may be laid. Every driver with a workspace can take files under {@code /workspace} (the
 * SPI's workspace calls), so that is where resources go: a {@code mount_path} under {@code /workspace} is used as it
 * is, one under {@code /mnt/session/uploads} (the SDKs' default for files) is kept in the workspace at
 * {@code /workspace/.paddock/uploads/...} and reached through a symlink {@code /mnt/session/uploads} that Paddock
 * makes in the sandbox where its root can take one. Any other path is refused, naming the field.
 */
final class MountPaths {
    static final String UPLOADS = "/mnt/session/uploads";
    /** Where the content of {@link #UPLOADS} is kept inside the workspace. */
    static final String UPLOADS_IN_WORKSPACE = Workspace.ROOT + "/.paddock/uploads";
    private static final String RESERVED = Workspace.ROOT + "/.paddock";
    private static final int MAX = 1024;

    private MountPaths() {}

    /** Checks a requested mount path; answers it unchanged. */
    static String check(String path, String field) {
        if (path.length() > MAX) throw invalid(field, path, "must be at most " + MAX + " characters");
        if (!path.startsWith("/")) throw invalid(field, path, "must be an absolute path");
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\\') throw invalid(field, path, "must not contain control characters or backslashes");
        }
        if (path.endsWith("/")) throw invalid(field, path, "must not end with '/'");
        for (String part : path.substring(1).split("/", -1)) {
            if (part.isEmpty() || part.equals(".") || part.equals("..")) throw invalid(field, path, "must be a normal path without '//', '.' or '..'");
        }
        boolean inWorkspace = path.startsWith(Workspace.ROOT + "/");
        boolean inUploads = path.startsWith(UPLOADS + "/");
        if (!inWorkspace && !inUploads) {
            throw invalid(field, path, "must be under " + Workspace.ROOT + "/ or " + UPLOADS + "/ (where Paddock can lay resources on every driver)");
        }
        if (path.equals(RESERVED) || path.startsWith(RESERVED + "/")) throw invalid(field, path, "must not be under " + RESERVED + ", which Paddock keeps");
        return path;
    }

    /** Where the resource at {@code mountPath} is kept in the workspace. */
    static String inWorkspace(String mountPath) {
        return mountPath.startsWith(UPLOADS + "/") ? UPLOADS_IN_WORKSPACE + mountPath.substring(UPLOADS.length()) : mountPath;
    }

    static boolean needsUploadsLink(String mountPath) {
        return mountPath.startsWith(UPLOADS + "/");
    }

    /** True when one path is the other or lies inside it: two resources cannot share a place. */
    static boolean overlap(String a, String b) {
        return a.equals(b) || a.startsWith(b + "/") || b.startsWith(a + "/");
    }

    private static PaddockException invalid(String field, String path, String why) {
        return new PaddockException(ErrorCode.INVALID_MOUNT_PATH, "field '" + field + "' ('" + Text.clip(path, 80) + "') " + why);
    }
}
