package dev.paddock.core.spi;

import java.time.Instant;

/** One entry of a sandbox directory. {@code path} is absolute as seen inside the sandbox. */
public record FileEntry(String path, String name, Type type, long size, int mode, Instant modifiedAt, String linkTarget) {
    public enum Type { FILE, DIRECTORY, SYMLINK, OTHER }
}
