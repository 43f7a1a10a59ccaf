package dev.paddock.driver.bwrap;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The kernel limits that bound how many sandboxes this host holds at once. Every idle bwrap sandbox keeps
 * {@link #PROCESSES_PER_SANDBOX} processes (bwrap and its init), each a pid and a thread, so {@code kernel.pid_max}
 * (32,768 on many distributions) is the first to run out. Namespace limits ({@code user.max_*_namespaces}) count per
 * uid, and every sandbox has its own.
 */
record KernelLimits(long pidMax, long threadsMax, long processes) {
    static final int PROCESSES_PER_SANDBOX = 2;

    static KernelLimits read() {
        return new KernelLimits(sysctl("kernel/pid_max"), sysctl("kernel/threads-max"), processCount());
    }

    /** How many more idle sandboxes the kernel's process limits leave room for now (-1 if unknown). */
    long roomForSandboxes() {
        long pids = Math.min(known(pidMax), known(threadsMax));
        if (pids == Long.MAX_VALUE || processes < 0) return -1;
        return Math.max(0, (pids - processes) / PROCESSES_PER_SANDBOX);
    }

    /** A warning when fewer than {@code wanted} more sandboxes fit, naming the limit and how to raise it. */
    Optional<String> shortOf(long wanted) {
        long room = roomForSandboxes();
        if (room < 0 || room >= wanted) return Optional.empty();
        return Optional.of("this host has room for about " + room + " more sandboxes, fewer than bwrap_uid_count (" + wanted + "): "
                + describe() + ", and each idle sandbox holds " + PROCESSES_PER_SANDBOX + " processes."
                + " Creates beyond that answer 503 host_at_capacity; to run more, raise the limits, e.g."
                + " sysctl -w kernel.pid_max=4194304 kernel.threads-max=4194304");
    }

    String describe() {
        return "kernel.pid_max " + pidMax + ", kernel.threads-max " + threadsMax + ", " + processes + " processes running";
    }

    private static long known(long limit) {
        return limit < 0 ? Long.MAX_VALUE : limit;
    }

    /**
     * A numeric kernel setting under /proc/sys, or -1 when absent. Read as a stream: {@code Files.readString} trusts the
     * size of 0 that these files report and returns only their first byte.
     */
    static long sysctl(String name) {
        try (InputStream in = Files.newInputStream(Path.of("/proc/sys", name))) {
            return Long.parseLong(new String(in.readNBytes(64), StandardCharsets.US_ASCII).trim());
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Processes now on the host: the numeric entries of /proc (threads are not counted; a sandbox's are few). */
    private static long processCount() {
        long n = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of("/proc"), p -> Character.isDigit(p.getFileName().toString().charAt(0)))) {
            for (Path ignored : entries) n++;
            return n;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
