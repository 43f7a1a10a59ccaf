package dev.paddock.driver.subprocess;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Kills a process and everything it started. Descendants are collected first so none is reparented unseen. */
final class ProcessTree {
    private ProcessTree() {}

    static void kill(ProcessHandle root) {
        List<ProcessHandle> descendants = root.descendants().toList();
        root.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    /** Sends {@code signal} to the process and its descendants with kill(1), which java.lang.Process cannot do. */
    static void signal(ProcessHandle root, int signal) {
        List<String> command = new ArrayList<>(List.of("kill", "-s", String.valueOf(signal), String.valueOf(root.pid())));
        root.descendants().forEach(d -> command.add(String.valueOf(d.pid())));
        try {
            Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
            kill.getInputStream().readAllBytes();
            kill.waitFor();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
