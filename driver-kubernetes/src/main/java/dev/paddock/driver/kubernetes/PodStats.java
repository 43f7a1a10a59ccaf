package dev.paddock.driver.kubernetes;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.SandboxStatus;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A running pod's memory use, memory limit, process count, OOM kills and CPU time, read from the sandbox container's
 * own cgroup ({@code /sys/fs/cgroup}: the container runtime's cgroup namespace makes it the container's) in one short
 * exec, cgroup v2 files first, v1 otherwise. Chosen over the metrics API ({@code metrics.k8s.io}), which needs
 * metrics-server in the cluster, another RBAC grant, reports no pid count and lags by its scrape interval.
 *
 * <p>The exec runs in the sandbox, so its output is the sandbox's to forge (cgroupfs is read-only to it, but the
 * {@code sh} and {@code cat} it runs are its image's): every value is checked, and anything but a plain decimal is
 * unknown ({@code -1}), never an error. A sandbox can only misreport its own numbers; limits are the kernel's.
 */
final class PodStats {
    /** One "key value" line each; a file that is missing prints nothing. */
    static final String SCRIPT = "cd /sys/fs/cgroup 2>/dev/null || exit 0; r() { [ -r \"$2\" ] && printf '%s %s\\n' \"$1\" \"$(head -c 64 \"$2\")\"; }; "
            + "if [ -f memory.current ]; then r memory memory.current; r memory_max memory.max; r pids pids.current; "
            + "printf 'oom %s\\n' \"$(grep -s '^oom_kill ' memory.events | cut -d' ' -f2)\"; "
            + "printf 'cpu_usec %s\\n' \"$(grep -s '^usage_usec ' cpu.stat | cut -d' ' -f2)\"; "
            + "else r memory memory/memory.usage_in_bytes; r memory_max memory/memory.limit_in_bytes; r pids pids/pids.current; "
            + "printf 'oom %s\\n' \"$(grep -s '^oom_kill ' memory/memory.oom_control | cut -d' ' -f2)\"; "
            + "r cpu_ns cpuacct/cpuacct.usage; fi; exit 0";
    /** A v1 memory limit this large (the page-rounded maximum) means none. */
    private static final long V1_UNLIMITED = Long.MAX_VALUE / 2;

    private PodStats() {}

    /** The status of a running pod; the counts it cannot read are -1. */
    static SandboxStatus read(PodExec exec) {
        try {
            PodExec.Result r = exec.run(List.of("/bin/sh", "-c", SCRIPT), null);
            if (r.exitCode() != 0) return unknown();
            return parse(new String(r.stdout(), 0, Math.min(r.stdout().length, 4096), StandardCharsets.UTF_8));
        } catch (PaddockException e) {
            // a pod ending meanwhile, or one whose image lacks sh: alive, counts unknown
            return unknown();
        }
    }

    static SandboxStatus parse(String output) {
        Map<String, Long> v = new HashMap<>();
        for (String line : output.split("\n")) {
            int space = line.indexOf(' ');
            if (space <= 0) continue;
            v.putIfAbsent(line.substring(0, space), number(line.substring(space + 1).strip()));
        }
        long memoryMax = v.getOrDefault("memory_max", -1L);
        if (memoryMax >= V1_UNLIMITED) memoryMax = -1;
        long pids = v.getOrDefault("pids", -1L);
        long cpu = v.containsKey("cpu_usec") && v.get("cpu_usec") >= 0 && v.get("cpu_usec") <= Long.MAX_VALUE / 1000
                ? v.get("cpu_usec") * 1000 : v.getOrDefault("cpu_ns", -1L);
        return new SandboxStatus(true, false, v.getOrDefault("memory", -1L), memoryMax, pids > Integer.MAX_VALUE ? -1 : (int) pids,
                v.getOrDefault("oom", -1L), cpu);
    }

    /** A plain decimal of at most 18 digits, else -1 ("max", empty, or anything a sandbox made up). */
    static long number(String s) {
        if (s.isEmpty() || s.length() > 18) return -1;
        for (int i = 0; i < s.length(); i++) if (s.charAt(i) < '0' || s.charAt(i) > '9') return -1;
        return Long.parseLong(s);
    }

    private static SandboxStatus unknown() {
        return new SandboxStatus(true, false, -1, -1, -1, -1, -1);
    }
}
