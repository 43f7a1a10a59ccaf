package dev.paddock.core.spi;

import java.time.Duration;

/**
 * How a command ended. {@code exitCode} follows the shell convention (128 + signal when killed by a signal);
 * {@code timedOut} is set when the driver killed it at its timeout; {@code oomKilled} when the sandbox's memory
 * limit killed a process while it ran.
 */
public record ExecResult(int exitCode, int signal, boolean timedOut, boolean oomKilled, Duration duration) {}
