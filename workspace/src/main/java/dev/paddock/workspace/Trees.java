package dev.paddock.workspace;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/** Recursive deletion that never follows a symlink: links are unlinked, directories opened with O_NOFOLLOW. */
final class Trees {
    static final int MAX_DEPTH = 2048;

    private Trees() {}

    static void delete(int dir, String name, String path) {
        delete(dir, name, path, 0);
    }

    private static void delete(int dir, String name, String path, int depth) {
        if (depth > MAX_DEPTH) {
            throw new PaddockException(ErrorCode.TREE_TOO_DEEP, "the tree at " + WorkspaceErrors.show(path) + " is deeper than " + MAX_DEPTH + " levels");
        }
        for (int attempt = 0; ; attempt++) {
            Stat stat;
            try {
                stat = Posix.stat(dir, name);
            } catch (Errno e) {
                if (e.errno() == Errno.ENOENT) return;
                throw WorkspaceErrors.of(e, path);
            }
            try {
                if (!stat.isDirectory()) {
                    Posix.unlinkat(dir, name, 0);
                    return;
                }
                try (Fd child = Fd.openDirectory(dir, name)) {
                    for (String entry : Fd.names(child.fd())) delete(child.fd(), entry, path, depth + 1);
                }
                Posix.unlinkat(dir, name, Posix.AT_REMOVEDIR);
                return;
            } catch (Errno e) {
                boolean changedMeanwhile = e.errno() == Errno.ELOOP || e.errno() == Errno.ENOTDIR
                        || e.errno() == Errno.ENOTEMPTY || e.errno() == Errno.EISDIR;
                if (e.errno() == Errno.ENOENT) return;
                if (!changedMeanwhile || attempt >= 3) throw WorkspaceErrors.of(e, path);
            }
        }
    }
}
