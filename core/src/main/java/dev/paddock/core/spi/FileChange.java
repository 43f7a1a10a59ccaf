package dev.paddock.core.spi;

import java.util.Locale;

/**
 * One change under a watched directory: {@code path} is the sandbox path ({@code /workspace/...}), never a host path.
 * {@link Kind#OVERFLOW} says changes were left out (the kernel's queue overflowed, a burst went past the rate cap,
 * or a directory past the cap of watched directories was not watched); its {@code path} is the watched directory
 * and the client should list it again.
 */
public record FileChange(Kind kind, String path) {
    public enum Kind {
        CREATED, MODIFIED, DELETED, OVERFLOW;

        public String wireName() { return name().toLowerCase(Locale.ROOT); }
    }
}
