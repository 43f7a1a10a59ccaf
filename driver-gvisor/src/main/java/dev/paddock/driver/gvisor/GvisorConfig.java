package dev.paddock.driver.gvisor;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Settings of the gVisor driver. Its own files are in {@link #stateDir()}: {@code bin/} (the init agent), {@code runsc/} (runsc's state
 * of every container), {@code run/<id>/} (the OCI bundle, control socket and log of a live sandbox; root-only),
 * {@code sandboxes/<id>/} (workspace, outputs, generated /etc files; root-only on the host), {@code rootfs/} (the
 * empty root of sandboxes on the host's /usr) and {@code etc/}; images are read from {@code <dataDir>/images/<name>/rootfs}. {@code platform} is
 * runsc's way to run the sandbox kernel: {@code kvm} where /dev/kvm is usable and the CPU virtualizes, {@code ptrace} elsewhere.
 */
public record GvisorConfig(Path dataDir, Path runsc, String platform, Duration startTimeout) {
    public static final Path DEFAULT_RUNSC = Path.of("/usr/bin/runsc");
    private static final Path KVM = Path.of("/dev/kvm");
    private static final Path CPUINFO = Path.of("/proc/cpuinfo");

    public GvisorConfig {
        if (dataDir == null) throw new PaddockException(ErrorCode.INVALID_CONFIG, "gvisor driver: dataDir is required");
        dataDir = dataDir.toAbsolutePath().normalize();
        runsc = runsc == null ? DEFAULT_RUNSC : runsc;
        platform = platform == null ? defaultPlatform() : platform;
        if (!platform.equals("ptrace") && !platform.equals("kvm")) {
            throw new PaddockException(ErrorCode.INVALID_CONFIG, "gvisor driver: platform must be ptrace or kvm, got '" + platform + "'");
        }
        startTimeout = startTimeout == null ? Duration.ofSeconds(20) : startTimeout;
    }

    /**
     * Where this driver keeps its own files: {@code <dataDir>/gvisor}, so the bwrap driver, which takes every
     * directory under {@code <dataDir>/run} for one of its sandboxes, never sees them. Images stay shared in
     * {@code <dataDir>/images}.
     */
    public Path stateDir() {
        return dataDir.resolve("gvisor");
    }

    public static GvisorConfig defaults(Path dataDir) {
        return new GvisorConfig(dataDir, null, null, null);
    }

    /**
     * kvm when this host lets us open /dev/kvm and its CPU shows hardware virtualization (faster system calls),
     * ptrace otherwise. /dev/kvm alone is not enough: a virtual machine without nested virtualization can offer one
     * whose guests never run, and runsc's kvm platform then spins until the start timeout.
     */
    static String defaultPlatform() {
        return Files.isReadable(KVM) && Files.isWritable(KVM) && cpuVirtualizes(CPUINFO) ? "kvm" : "ptrace";
    }

    /** Whether the cpuinfo at {@code cpuinfo} lists the flag vmx (Intel VT-x) or svm (AMD-V). */
    static boolean cpuVirtualizes(Path cpuinfo) {
        try (var lines = Files.lines(cpuinfo)) {
            return lines.filter(l -> l.startsWith("flags")).findFirst()
                    .map(l -> List.of(l.substring(l.indexOf(':') + 1).trim().split("\\s+")))
                    .map(flags -> flags.contains("vmx") || flags.contains("svm")).orElse(false);
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }
}
