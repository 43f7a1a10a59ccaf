package dev.paddock.driver.bwrap.cgroup;

import dev.paddock.core.spi.Limits;
import java.nio.file.Path;
import java.util.Map;

/** One cgroup layout (v1 or v2) of this host; creates and finds the cgroups of sandboxes. */
public interface CgroupSystem {
    /** "v1" or "v2". */
    String version();

    /** Creates the sandbox's cgroup with its limits applied; fails (and leaves nothing behind) when a limit cannot be set. */
    SandboxCgroup create(String sandboxId, Limits limits);

    /** The cgroup of a sandbox that may or may not exist (after a host restart). */
    SandboxCgroup open(String sandboxId);

    /** The cgroup at directories recorded by {@link SandboxCgroup#dirs()} (the host's own cgroup may differ after a restart). */
    SandboxCgroup restore(Map<String, Path> dirs);
}
