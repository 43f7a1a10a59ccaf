package dev.paddock.workspace;

/** The uid/gid that files created on behalf of the sandbox must belong to; -1 leaves ownership alone. */
record Ownership(int uid, int gid) {
    boolean enabled() { return uid >= 0 || gid >= 0; }

    void apply(Fd fd) {
        if (enabled()) Posix.fchown(fd.fd(), uid, gid);
    }

    /** For symlinks, which cannot be opened: changes the link itself. */
    void applyToLink(int dirfd, String name) {
        if (enabled()) Posix.lchownat(dirfd, name, uid, gid);
    }
}
