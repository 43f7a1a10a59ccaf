package dev.paddock.driver.bwrap;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The mount namespace sandboxes with disk images are launched from: a copy of the host's without this data
 * directory's disk images, held by a small child process ({@code paddock-init mountns}, see mountns_main in
 * paddock-init.c) for as long as the driver runs. Each launcher copies it and attaches only its own sandbox's disk
 * (own_mounts), so a start costs the same however many sandboxes run; starting in a copy of the host's namespace,
 * which holds one disk per sandbox, made every start O(sandboxes). Made on the first launch that needs it and again
 * if its process died; the process ends when its stdin closes, at {@link #close} or when the server dies, and takes
 * the namespace with it (launched sandboxes hold copies of their own). A launcher is told the namespace's
 * {@code /proc/PID/ns/mnt} together with its device and inode as seen here once it was made, and refuses any other.
 */
final class LaunchNamespace implements AutoCloseable {
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LaunchNamespace.class);
    private static final long END_TIMEOUT_SECONDS = 30;

    private final Path initBinary;
    private final Path sandboxes;
    private Process process;
    private List<String> args;
    /** Why the namespace could not be made; then sandboxes start in the host's namespace (said once). */
    private String problem;

    LaunchNamespace(Path initBinary, Path sandboxes) {
        this.initBinary = initBinary;
        this.sandboxes = sandboxes;
    }

    /**
     * The launcher's {@code --own-mounts} arguments for the sandbox directory {@code own}, or empty where this host
     * cannot make the namespace (the sandbox then starts in the host's, as before).
     */
    synchronized Optional<List<String>> launchArgs(Path own) {
        if (problem != null) return Optional.empty();
        if (process == null || !process.isAlive()) {
            try {
                start();
            } catch (IOException e) {
                problem = e.getMessage();
                log.warn("sandboxes start in the host's mount namespace, so each start costs more the more sandboxes have disks: {}", problem);
                return Optional.empty();
            }
        }
        return Optional.of(List.of("--own-mounts", own.toString(), args.get(0), args.get(1)));
    }

    private void start() throws IOException {
        stop();
        Process p = new ProcessBuilder(initBinary.toString(), "mountns", sandboxes.toString()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (!"ready".equals(line)) {
                throw new IOException("cannot make the launch mount namespace: " + (line == null ? "paddock-init mountns exited" : line));
            }
            Path ns = Path.of("/proc", Long.toString(p.pid()), "ns", "mnt");
            long dev = (Long) Files.getAttribute(ns, "unix:dev"), ino = (Long) Files.getAttribute(ns, "unix:ino");
            if (ino == (Long) Files.getAttribute(Path.of("/proc/self/ns/mnt"), "unix:ino")) {
                throw new IOException("paddock-init mountns is in this process's mount namespace");
            }
            if (!p.isAlive()) throw new IOException("paddock-init mountns exited");
            process = p;
            args = List.of(ns.toString(), Long.toUnsignedString(dev) + ":" + Long.toUnsignedString(ino));
        } catch (IOException | RuntimeException e) {
            end(p);
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /** Ends the namespace's process; sandboxes already launched keep running. */
    @Override
    public synchronized void close() {
        stop();
    }

    private void stop() {
        if (process != null) end(process);
        process = null;
        args = null;
    }

    private static void end(Process p) {
        try {
            p.getOutputStream().close(); // it exits when its stdin closes
            if (!p.waitFor(END_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(END_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            p.destroyForcibly();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
