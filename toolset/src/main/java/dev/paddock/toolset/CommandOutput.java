package dev.paddock.toolset;

/**
 * How a command ended and what it printed. {@code stdoutTruncated} says bytes were dropped to stay in the limit.
 * {@code exitCode} follows the shell convention (127: not found, 128 + n: killed by signal n).
 */
public record CommandOutput(byte[] stdout, boolean stdoutTruncated, byte[] stderr, int exitCode, boolean timedOut,
                            boolean oomKilled) {}
