package dev.paddock.driver.bwrap.cgroup;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Picks the cgroup layout of this host. v1 is used when its memory, pids, cpu and freezer hierarchies are all
 * mounted (hybrid hosts keep those in v1); otherwise a unified v2 mount. Sandboxes live under this process's own
 * cgroup ({@code /proc/self/cgroup}) in a {@code paddock} child, so Paddock stays inside whatever limits it was given.
 */
public final class CgroupDetector {
    private CgroupDetector() {}

    public static CgroupSystem detect(Path mountRoot) {
        return detect(mountRoot, readSelf());
    }

    /** Why cgroups cannot be used here, or empty when they can. */
    public static Optional<String> problem(Path mountRoot) {
        try {
            detect(mountRoot);
            return Optional.empty();
        } catch (PaddockException e) {
            return Optional.of(e.getMessage());
        }
    }

    static CgroupSystem detect(Path mountRoot, List<String> selfCgroup) {
        Map<String, String> v1Paths = new HashMap<>();
        String v2Path = null;
        for (String line : selfCgroup) {
            String[] parts = line.split(":", 3);
            if (parts.length != 3) continue;
            if (parts[0].equals("0") && parts[1].isEmpty()) v2Path = parts[2];
            for (String c : parts[1].split(",")) if (!c.isEmpty()) v1Paths.put(c, parts[2]);
        }
        Map<String, Path> parents = new HashMap<>();
        for (String c : CgroupV1.REQUIRED) {
            Path mount = mountRoot.resolve(c);
            if (v1Paths.containsKey(c) && Files.isRegularFile(mount.resolve("cgroup.procs")) && !Files.exists(mount.resolve("cgroup.controllers"))) {
                parents.put(c, under(mount, v1Paths.get(c)));
            }
        }
        if (parents.size() == CgroupV1.REQUIRED.size()) {
            String acct = CgroupV1.OPTIONAL;
            if (v1Paths.containsKey(acct) && Files.isRegularFile(mountRoot.resolve(acct).resolve("cpuacct.usage"))) {
                parents.put(acct, under(mountRoot.resolve(acct), v1Paths.get(acct)));
            }
            return new CgroupV1(parents);
        }
        if (v2Path != null && Files.isRegularFile(mountRoot.resolve("cgroup.controllers"))) {
            return new CgroupV2(under(mountRoot, v2Path));
        }
        throw new PaddockException(ErrorCode.CGROUPS_UNAVAILABLE,
                "no usable cgroups under " + mountRoot + ": need cgroup v1 memory, pids, cpu and freezer hierarchies or a cgroup v2 mount");
    }

    private static Path under(Path mount, String ownPath) {
        String rel = ownPath.startsWith("/") ? ownPath.substring(1) : ownPath;
        return (rel.isEmpty() ? mount : mount.resolve(rel)).resolve("paddock");
    }

    private static List<String> readSelf() {
        try {
            return Files.readAllLines(Path.of("/proc/self/cgroup"));
        } catch (IOException e) {
            throw new PaddockException(ErrorCode.CGROUPS_UNAVAILABLE, "cannot read /proc/self/cgroup: " + e.getMessage());
        }
    }
}
