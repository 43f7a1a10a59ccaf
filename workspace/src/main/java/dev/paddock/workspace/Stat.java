package dev.paddock.workspace;

import java.time.Instant;

/** The parts of {@code struct statx} the workspace needs. */
record Stat(int mode, int uid, int gid, long size, Instant modifiedAt, int links) {
    public static final int S_IFMT = 0170000, S_IFREG = 0100000, S_IFDIR = 0040000, S_IFLNK = 0120000;

    Stat(int mode, int uid, int gid, long size, Instant modifiedAt) {
        this(mode, uid, gid, size, modifiedAt, 1);
    }

    public boolean isRegular() { return (mode & S_IFMT) == S_IFREG; }

    public boolean isDirectory() { return (mode & S_IFMT) == S_IFDIR; }

    public boolean isSymlink() { return (mode & S_IFMT) == S_IFLNK; }

    public int permissions() { return mode & 07777; }
}
