package dev.paddock.core.spi;

import java.time.Instant;
import java.util.List;

/** A background process started with {@link Sandbox#startProcess}. {@code exitCode} is null while it runs. */
public record ProcessInfo(long pid, List<String> argv, Instant startedAt, boolean running, Integer exitCode) {}
