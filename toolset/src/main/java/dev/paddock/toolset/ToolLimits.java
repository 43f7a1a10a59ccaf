package dev.paddock.toolset;

import java.time.Duration;

/**
 * Bounds on what a tool call may cost or return. {@code maxOutputBytes} caps every result's text (a marker says
 * when it was cut); {@code maxFileBytes} caps a whole-file read or edit, both of which load the file into memory.
 */
public record ToolLimits(
        int maxOutputBytes,
        int maxFileBytes,
        int maxWriteBytes,
        Duration defaultBashTimeout,
        Duration maxBashTimeout,
        Duration searchTimeout,
        int globResultLimit,
        int walkMaxEntries,
        int walkMaxDepth,
        int grepMaxLineChars) {

    public static final ToolLimits DEFAULT = new ToolLimits(100 * 1024, 256 * 1024, 16 * 1024 * 1024,
            Duration.ofMinutes(2), Duration.ofMinutes(10), Duration.ofMinutes(1), 200, 50_000, 40, 2000);

    public ToolLimits {
        if (maxOutputBytes < 1024) throw new IllegalArgumentException("maxOutputBytes must be at least 1024");
        if (maxFileBytes < 1 || maxWriteBytes < 1) throw new IllegalArgumentException("file limits must be positive");
        if (defaultBashTimeout.compareTo(maxBashTimeout) > 0) {
            throw new IllegalArgumentException("defaultBashTimeout must not exceed maxBashTimeout");
        }
    }
}
