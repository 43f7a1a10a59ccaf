package dev.paddock.driver.bwrap;

import dev.paddock.driver.bwrap.cgroup.CgroupDetector;
import dev.paddock.init.InitBinary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/** Explains what this host lacks for the bwrap driver; an empty list means it can run sandboxes. */
final class HostCheck {
    /** The namespaces bwrap --unshare-all makes for a sandbox. */
    static final List<String> NAMESPACES = List.of("user", "mnt", "pid", "net", "ipc", "uts", "cgroup");

    private HostCheck() {}

    static List<String> problems(BwrapConfig config) {
        List<String> out = new ArrayList<>();
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) out.add("the bwrap driver runs on Linux only");
        if (!Files.isExecutable(config.bwrap())) out.add(config.bwrap() + " is missing: install bubblewrap (Debian: apt-get install bubblewrap)");
        if (!isRoot()) out.add("the bwrap driver must run as root (it creates cgroups and runs each sandbox as its own uid)");
        CgroupDetector.problem(config.cgroupRoot()).ifPresent(out::add);
        if (InitBinary.class.getResource(InitBinary.RESOURCE) == null) {
            out.add("the init agent was not built into this jar: build driver-bwrap on Linux with gcc and static glibc (Debian: gcc, libc6-dev)");
        }
        out.addAll(namespaceProblems(KernelLimits::sysctl));
        if (KernelLimits.sysctl("kernel/unprivileged_userns_clone") == 0) {
            out.add("unprivileged user namespaces are disabled: sysctl -w kernel.unprivileged_userns_clone=1");
        }
        closedParent(config.dataDir()).ifPresent(dir -> out.add("sandboxes run as their own uids and cannot pass through " + dir
                + " (closed to other users) to reach the data directory " + config.dataDir() + ": choose a data directory outside it,"
                + " such as /var/lib/paddock, or let others pass (chmod o+x " + dir + ")"));
        return out;
    }

    /**
     * The kinds of namespace this host disables (a limit of 0), read through {@code sysctl} (a name under /proc/sys,
     * -1 when absent). The limits count per uid, and each sandbox has its own, so any other value serves.
     */
    static List<String> namespaceProblems(ToLongFunction<String> sysctl) {
        List<String> out = new ArrayList<>();
        for (String kind : NAMESPACES) {
            if (sysctl.applyAsLong("user/max_" + kind + "_namespaces") == 0) {
                out.add(kind + " namespaces are disabled (user.max_" + kind + "_namespaces = 0); every sandbox needs one: sysctl -w user.max_"
                        + kind + "_namespaces=10000");
            }
        }
        return out;
    }

    /** The first existing parent of {@code dataDir} that other users may not pass through, if any. */
    static Optional<Path> closedParent(Path dataDir) {
        for (Path dir = dataDir.toAbsolutePath().normalize().getParent(); dir != null; dir = dir.getParent()) {
            try {
                if (!Files.getPosixFilePermissions(dir).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return Optional.of(dir);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // not there yet: it is created with the data directory's own mode
            }
        }
        return Optional.empty();
    }

    static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
