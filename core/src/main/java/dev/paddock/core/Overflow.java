package dev.paddock.core;

import java.io.IOException;

/** Throws what going past a stream's cap means to its caller ({@link CappedInputStream}, {@link CappedOutputStream}). */
@FunctionalInterface
public interface Overflow {
    void exceeded() throws IOException;
}
