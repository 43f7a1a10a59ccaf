package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What the tab's VM has, fixed when its assets were built: the memory of {@code vm.json} (the saved state was taken
 * with it), one emulated CPU, and no cgroups, so no limit on processes beyond the 32-bit kernel's pid_max. Nothing
 * in the VM can give a sandbox more, or hold it to less: a request that names other limits is refused, and a
 * sandbox reports these.
 */
public record VmResources(long memoryBytes, int cpus, int pidMax) {
    /** The memory of the VM scripts/build-browser-vm builds (its vm.json says so; this is used when it cannot be read). */
    static final long BUILT_MEMORY_BYTES = 128L << 20;
    /** The 32-bit kernel's default pid_max. */
    static final int PID_MAX = 32768;

    public static VmResources of(Path assetsDir) {
        long memory = BUILT_MEMORY_BYTES;
        Path vm = assetsDir == null ? null : assetsDir.resolve("vm.json");
        if (vm != null && Files.isRegularFile(vm)) {
            try {
                JsonNode n = JsonMapper.builder().build().readTree(Files.readString(vm)).path("memory_size");
                if (n.canConvertToLong() && n.asLong() >= (16L << 20)) memory = n.asLong();
            } catch (IOException | RuntimeException e) {
                // a broken vm.json fails the tab's boot with its own message; the default is what the build writes
            }
        }
        return new VmResources(memory, 1, PID_MAX);
    }

    public Limits limits() {
        return new Limits(memoryBytes, pidMax, cpus);
    }

    /** The request's limits when they are exactly what the VM has; otherwise a 400 naming the limit and the VM's value. */
    Limits check(Limits requested) {
        if (requested == null) return limits();
        if (requested.memoryBytes() != memoryBytes) {
            throw new PaddockException(ErrorCode.MEMORY_LIMIT_UNAVAILABLE, "limits.memory: the browser VM has a fixed "
                    + mib(memoryBytes) + " of memory (the guest kernel keeps part of it) and cannot give a sandbox more or hold it to less; got "
                    + mib(requested.memoryBytes()) + ". Leave limits.memory out or ask for " + (memoryBytes >> 20) + "m");
        }
        if (requested.cpus() != cpus) {
            throw new PaddockException(ErrorCode.CPUS_LIMIT_UNAVAILABLE, "limits.cpus: the browser VM emulates " + cpus
                    + " CPU on the user's machine and cannot give a sandbox more or hold it to less; got " + requested.cpus()
                    + ". Leave limits.cpus out or ask for " + cpus);
        }
        if (requested.pids() != pidMax) {
            throw new PaddockException(ErrorCode.PIDS_LIMIT_UNAVAILABLE, "limits.pids: the browser VM cannot cap processes (no cgroups;"
                    + " its kernel allows " + pidMax + "); got " + requested.pids() + ". Leave limits.pids out");
        }
        return requested;
    }

    private static String mib(long bytes) {
        return bytes % (1L << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " bytes";
    }
}
