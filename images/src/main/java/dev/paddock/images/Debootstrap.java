package dev.paddock.images;

import dev.paddock.core.ErrorCode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Runs {@code debootstrap --variant=minbase} into a target directory, streaming its output as progress. */
final class Debootstrap {
    private static final int TAIL_LINES = 25;
    private static final List<Path> SEARCH = List.of(Path.of("/usr/sbin/debootstrap"), Path.of("/sbin/debootstrap"),
            Path.of("/usr/bin/debootstrap"), Path.of("/usr/local/sbin/debootstrap"));

    private final Path executable;

    private Debootstrap(Path executable) {
        this.executable = executable;
    }

    /** Checks the preconditions first so a build fails before creating anything. */
    static Debootstrap locate() {
        Path found = SEARCH.stream().filter(Files::isExecutable).findFirst().orElse(null);
        if (found == null) {
            throw ImageErrors.precondition(ErrorCode.DEBOOTSTRAP_MISSING,
                    "debootstrap is not installed; install it with 'apt-get install debootstrap' and retry");
        }
        if (!runningAsRoot()) {
            throw ImageErrors.precondition(ErrorCode.IMAGE_BUILD_REQUIRES_ROOT,
                    "building a Debian image needs root (debootstrap creates files owned by root and chroots); "
                            + "run Paddock as root or import an OCI image instead");
        }
        return new Debootstrap(found);
    }

    static List<String> command(Path executable, BuildSpec spec, String mirror, Path target) {
        List<String> cmd = new ArrayList<>(List.of(executable.toString(), "--variant=minbase"));
        if (!spec.packages().isEmpty()) cmd.add("--include=" + String.join(",", spec.packages()));
        cmd.addAll(List.of(spec.suite(), target.toString(), mirror));
        return cmd;
    }

    void run(BuildSpec spec, String mirror, Path target, Consumer<String> progress) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command(executable, spec, mirror, target)).redirectErrorStream(true);
        pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
        pb.environment().put("LC_ALL", "C");
        Process process = pb.start();
        Deque<String> tail = new ArrayDeque<>();
        Thread reader = Thread.ofVirtual().start(() -> pump(process, progress, tail));
        boolean finished;
        try {
            finished = process.waitFor(spec.timeout().toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) stop(process);
            reader.join(10_000);
        } catch (InterruptedException e) {
            stop(process);
            Thread.currentThread().interrupt();
            throw ImageErrors.buildFailed("the image build was interrupted");
        }
        if (!finished) {
            throw ImageErrors.buildFailed("debootstrap did not finish within " + spec.timeout().toMinutes()
                    + " minutes and was stopped; last output:\n" + tail(tail));
        }
        if (process.exitValue() != 0) {
            throw ImageErrors.buildFailed("debootstrap failed with exit code " + process.exitValue()
                    + " (mirror " + mirror + "); last output:\n" + tail(tail));
        }
    }

    private static void pump(Process process, Consumer<String> progress, Deque<String> tail) {
        try (BufferedReader out = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > TAIL_LINES) tail.removeFirst();
                }
                try {
                    progress.accept(line);
                } catch (RuntimeException e) {
                    // a broken progress listener must not stall the build
                }
            }
        } catch (IOException e) {
            // the process went away; its exit code tells the story
        }
    }

    /** TERM first so debootstrap's exit trap unmounts /proc and /sys inside the target; then KILL. */
    private static void stop(Process process) {
        List<ProcessHandle> children = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }

    private static String tail(Deque<String> tail) {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    private static boolean runningAsRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) return line.split("\\s+")[2].equals("0"); // effective uid
            }
        } catch (IOException e) {
            // no /proc: assume not root and let the caller see the clear error
        }
        return false;
    }
}
