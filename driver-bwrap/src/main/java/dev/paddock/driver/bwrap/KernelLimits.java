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
 * {@link #PROCESSES_PER_SANDBOX} process (its init; bwrap's outer process ends once init serves), a pid and a thread,
 * and one more where it has a disk of its own: the kernel runs a thread ({@code kworker/R-ext4-rsv-conversion}) for
 * every mounted ext4 image. So {@code kernel.pid_max} (32,768 on many distributions) is the first to run out.
 * Namespace limits ({@code user.max_*_namespaces}) count per uid, and every sandbox has its own; the mount namespace a
 * launcher makes as root (a copy of the driver's launch namespace, see own_mounts in paddock-init.c) goes with bwrap's
 * outer process, so root's count holds only the starts under way.
 */
record KernelLimits(long pidMax, long threadsMax, long processes) {
    static final int PROCESSES_PER_SANDBOX = 1;
    /** The kernel thread of a sandbox's mounted disk image. */
    static final int PROCESSES_PER_DISK = 1;
    /** What a host sized for many sandboxes sets, as the warning suggests it. */
    static final long SUGGESTED_PID_MAX = 4_194_304;

    static KernelLimits read() {
        return new KernelLimits(sysctl("kernel/pid_max"), sysctl("kernel/threads-max"), processCount());
    }

    /** Processes (pids and threads) one idle sandbox holds; with a disk image when {@code disks}. */
    static int processesPerSandbox(boolean disks) {
        return PROCESSES_PER_SANDBOX + (disks ? PROCESSES_PER_DISK : 0);
    }

    /** How many more idle sandboxes of {@code perSandbox} processes the kernel's process limits leave room for now (-1 if unknown). */
    long roomForSandboxes(int perSandbox) {
        long pids = Math.min(known(pidMax), known(threadsMax));
        if (pids == Long.MAX_VALUE || processes < 0) return -1;
        return Math.max(0, (pids - processes) / perSandbox);
    }

    /** The {@code kernel.pid_max} and {@code kernel.threads-max} that hold {@code wanted} more sandboxes beside what runs now. */
    long neededFor(long wanted, int perSandbox) {
        return Math.max(0, processes) + wanted * perSandbox;
    }

    /**
     * A warning when fewer than {@code wanted} more sandboxes of {@code perSandbox} processes fit, naming the limit,
     * the value that holds them and how to set it.
     */
    Optional<String> shortOf(long wanted, int perSandbox) {
        long room = roomForSandboxes(perSandbox);
        if (room < 0 || room >= wanted) return Optional.empty();
        long needed = neededFor(wanted, perSandbox);
        return Optional.of("this host has room for about " + room + " more sandboxes, fewer than bwrap_uid_count (" + wanted + "): "
                + describe() + ", and each idle sandbox holds " + perSandbox + " processes"
                + (perSandbox > PROCESSES_PER_SANDBOX ? " (its init and the kernel thread of its disk image)" : " (its init)")
                + ". Creates beyond that answer 503 host_at_capacity. For " + wanted + " sandboxes set kernel.pid_max and"
                + " kernel.threads-max to at least " + needed + ", e.g. sysctl -w kernel.pid_max=" + Math.max(needed, SUGGESTED_PID_MAX)
                + " kernel.threads-max=" + Math.max(needed, SUGGESTED_PID_MAX) + ", or lower bwrap_uid_count");
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
