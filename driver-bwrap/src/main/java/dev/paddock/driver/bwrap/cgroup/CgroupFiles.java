package dev.paddock.driver.bwrap.cgroup;

import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/** Reads and writes of cgroup control files, with errors that name the file. */
final class CgroupFiles {
    private CgroupFiles() {}

    static void write(Path file, String value) {
        try {
            // one write(2): cgroupfs takes each write as one command
            Files.write(file, value.getBytes(StandardCharsets.US_ASCII), StandardOpenOption.WRITE, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        } catch (IOException e) {
            throw PaddockException.internal("cannot write '" + value + "' to " + file + ": " + e.getMessage(), e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            throw PaddockException.internal("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    static long readLong(Path file, long absent) {
        String s = read(file);
        if (s.isEmpty()) return absent;
        if (s.equals("max")) return -1;
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return absent;
        }
    }

    /** The value of {@code key} in a flat-keyed file such as memory.events ("key value" per line). */
    static long keyed(Path file, String key, long absent) {
        for (String line : read(file).split("\n")) {
            String[] kv = line.trim().split("\\s+");
            if (kv.length == 2 && kv[0].equals(key)) {
                try { return Long.parseLong(kv[1]); } catch (NumberFormatException e) { return absent; }
            }
        }
        return absent;
    }

    static List<Long> pids(Path procs) {
        List<Long> out = new ArrayList<>();
        for (String line : read(procs).split("\n")) {
            if (!line.isBlank()) out.add(Long.parseLong(line.trim()));
        }
        return out;
    }

    static void rmdir(Path dir) {
        for (int attempt = 0; ; attempt++) {
            try {
                Files.deleteIfExists(dir);
                return;
            } catch (IOException e) {
                // EBUSY for a moment while the last killed processes are released
                if (attempt >= 100) throw PaddockException.internal("cannot remove cgroup " + dir + ": " + e.getMessage(), e);
                sleep(10);
            }
        }
    }

    /** Polls until {@code done} holds; the kernel reports freezing and emptying asynchronously. */
    static void await(BooleanSupplier done, String what) {
        for (int i = 0; i < 1000; i++) {
            if (done.getAsBoolean()) return;
            sleep(i < 50 ? 1 : 10);
        }
        throw PaddockException.internal("cgroup did not become " + what + " in time", null);
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw PaddockException.internal("interrupted while waiting for a cgroup", e);
        }
    }

    static void kill(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
}
