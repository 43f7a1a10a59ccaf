package dev.paddock.workspace;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.Workspace;

/** The workspace's error vocabulary: stable codes, messages that echo the (clipped) path and say what to do. */
final class WorkspaceErrors {
    private WorkspaceErrors() {}

    static String show(String path) {
        return "'" + Text.clip(path, 200) + "'";
    }

    static PaddockException outside(String path) {
        return outside(path, Workspace.ROOT);
    }

    static PaddockException outside(String path, String root) {
        return new PaddockException(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                "path " + show(path) + " resolves outside " + root + "; use a path under " + root + " (symlinks may only point inside it)");
    }

    static PaddockException invalidPath(String path, String why) {
        return new PaddockException(ErrorCode.INVALID_PATH, "path " + show(path) + " is not usable: " + why);
    }

    static PaddockException tooManyLinks(String path) {
        return new PaddockException(ErrorCode.TOO_MANY_LINKS,
                "path " + show(path) + " goes through too many symbolic links (a loop?) or kept changing while it was resolved");
    }

    static PaddockException notFound(String path) {
        return new PaddockException(ErrorCode.FILE_NOT_FOUND, "no file or directory at " + show(path));
    }

    static PaddockException notADirectory(String path) {
        return new PaddockException(ErrorCode.NOT_A_DIRECTORY, "a component of " + show(path) + " is not a directory");
    }

    static PaddockException isADirectory(String path) {
        return new PaddockException(ErrorCode.IS_A_DIRECTORY, show(path) + " is a directory; name a file instead");
    }

    static PaddockException notRegular(String path) {
        return new PaddockException(ErrorCode.NOT_A_REGULAR_FILE,
                show(path) + " is not a regular file (a fifo, socket or device); only regular files can be read");
    }

    /**
     * A watch the kernel refused for lack of inotify instances, inotify watches or descriptors: a limit of the host,
     * shared by all its sandboxes, that a client can wait out; anything else as {@link #of}.
     */
    static PaddockException ofWatch(Errno e, String path) {
        boolean exhausted = e.errno() == Errno.EMFILE || e.errno() == Errno.ENFILE || e.errno() == Errno.ENOMEM
                || e.errno() == Errno.ENOSPC && e.call().startsWith("inotify");
        if (!exhausted) return of(e, path);
        return new PaddockException(ErrorCode.TOO_MANY_WATCHES, "the host has no inotify instances, watches or descriptors left for "
                + "another watch (" + e.getMessage() + "); close a watch and retry, or raise fs.inotify.max_user_instances and "
                + "fs.inotify.max_user_watches");
    }

    /** Translates a failed system call on {@code path} into a clear error. */
    static PaddockException of(Errno e, String path) {
        return switch (e.errno()) {
            case Errno.ENOENT -> notFound(path);
            case Errno.ENOTDIR -> notADirectory(path);
            case Errno.EISDIR -> isADirectory(path);
            case Errno.EEXIST -> new PaddockException(ErrorCode.ALREADY_EXISTS, show(path) + " already exists");
            case Errno.ENOTEMPTY -> new PaddockException(ErrorCode.DIRECTORY_NOT_EMPTY,
                    show(path) + " is a directory that is not empty; delete it recursively");
            case Errno.ELOOP -> tooManyLinks(path);
            case Errno.ENAMETOOLONG -> invalidPath(path, "name too long");
            case Errno.ENOSPC, Errno.EDQUOT -> new PaddockException(ErrorCode.WORKSPACE_FULL,
                    "the workspace has no space left while writing " + show(path) + "; delete files or raise the quota");
            case Errno.EFBIG -> new PaddockException(ErrorCode.FILE_TOO_LARGE,
                    show(path) + " would be larger than the workspace's filesystem allows");
            case Errno.EACCES, Errno.EPERM -> new PaddockException(ErrorCode.PERMISSION_DENIED,
                    "the host was denied access to " + show(path) + " (" + e.getMessage() + ")");
            case Errno.EMFILE, Errno.ENFILE, Errno.ENOMEM -> new PaddockException(ErrorCode.HOST_AT_CAPACITY,
                    "the host has no descriptors or kernel memory left to open " + show(path) + " (" + e.getMessage() + "); retry later");
            default -> new PaddockException(ErrorCode.WORKSPACE_IO_ERROR,
                    "file operation on " + show(path) + " failed: " + e.getMessage(), e);
        };
    }
}
