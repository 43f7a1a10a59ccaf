package dev.paddock.driver.docker;

import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.Workspace;
import dev.paddock.init.EgressFiles;
import dev.paddock.init.SandboxDirs;
import dev.paddock.init.SandboxEtc;
import dev.paddock.init.SandboxLayout;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The Engine API body that creates one sandbox's container: the init agent as its entrypoint (pid 1) serving on a
 * socket in a bound host directory, no network at all ({@code none}: only loopback, where init's forwarder relays
 * to the egress proxy's bound socket), the sandbox uid, every capability dropped, no new privileges, the engine's
 * default seccomp profile, a read-only root unless asked otherwise, and the limits as cgroup settings.
 */
final class ContainerConfig {
    /** Where the host's reduced /etc is read from when the sandbox runs on the host root. */
    record HostEtc(Path base, Path own) {}

    private ContainerConfig() {}

    static ObjectNode build(RootImages.Root root, boolean writableRootfs, HostEtc etc, DockerConfig config, SandboxDirs paths, Path initBinary,
                            String hostname, Limits limits, Map<String, String> env, EgressFiles egress, Map<String, String> labels) {
        ObjectNode c = DockerEngine.JSON.createObjectNode();
        c.put("Image", root.imageRef());
        c.put("Hostname", hostname);
        c.put("User", config.uid() + ":" + config.uid());
        c.put("WorkingDir", Workspace.ROOT);
        c.put("NetworkDisabled", true);
        ArrayNode entry = c.putArray("Entrypoint").add(SandboxLayout.INIT_PATH).add("serve")
                .add("--listen").add(SandboxLayout.CONTROL_DIR + "/" + SandboxLayout.CONTROL_SOCKET);
        if (egress != null) entry.add("--egress").add(SandboxLayout.EGRESS_DIR + "/" + egress.socketName());
        c.putArray("Cmd");
        ArrayNode envList = c.putArray("Env");
        environment(env, egress).forEach((k, v) -> envList.add(k + "=" + v));
        ObjectNode labelNode = c.putObject("Labels");
        labels.forEach(labelNode::put);

        ObjectNode h = c.putObject("HostConfig");
        h.put("NetworkMode", "none");
        h.put("Runtime", config.runtime());
        h.put("ReadonlyRootfs", !writableRootfs);
        h.putArray("CapDrop").add("ALL");
        h.putArray("SecurityOpt").add("no-new-privileges");
        h.put("IpcMode", "private");
        h.put("Init", false);
        h.putObject("RestartPolicy").put("Name", "no");
        h.put("Memory", limits.memoryBytes());
        h.put("MemorySwap", limits.memoryBytes()); // no swap beyond the memory limit
        if (DockerConfig.GVISOR.equals(config.runtime())) {
            // gVisor's own kernel threads are host processes of the container's cgroup (a pids cgroup limit would
            // crash the sandbox, not stop its fork), while the sandbox's processes are tasks inside gVisor, which
            // counts them per uid: every process in the sandbox runs as the sandbox uid, so this bounds them all
            h.putArray("Ulimits").addObject().put("Name", "nproc").put("Soft", limits.pids()).put("Hard", limits.pids());
        } else {
            h.put("PidsLimit", limits.pids());
        }
        h.put("NanoCpus", Math.round(limits.cpus() * 1e9));
        h.putObject("Tmpfs").put("/tmp", "rw,nosuid,nodev,mode=1777");
        // init's output only (commands' output goes over the socket): kept small
        h.putObject("LogConfig").put("Type", "json-file").putObject("Config").put("max-size", "1m").put("max-file", "1");

        ArrayNode mounts = h.putArray("Mounts");
        bind(mounts, paths.workspace(), Workspace.ROOT, false);
        bind(mounts, paths.outputs(), Workspace.OUTPUTS, false);
        bind(mounts, initBinary, SandboxLayout.INIT_PATH, true);
        bind(mounts, paths.controlDir(), SandboxLayout.CONTROL_DIR, false);
        if (root instanceof RootImages.Root.Host) {
            bind(mounts, Path.of("/usr"), "/usr", true);
            bind(mounts, etc.base(), "/etc", true);
            bind(mounts, etc.own(), "/etc/" + SandboxEtc.OWN_DIR, true);
        }
        if (egress != null) {
            bind(mounts, egress.socketDir(), SandboxLayout.EGRESS_DIR, true);
            bind(mounts, egress.caBundle(), SandboxLayout.CA_BUNDLE, true);
            if (overSystemBundle(root, etc)) bind(mounts, egress.caBundle(), SandboxLayout.SYSTEM_BUNDLE, true);
        }
        return c;
    }

    /** The sandbox's starting environment (see {@link SandboxLayout#environment}); checks every name and value. */
    static Map<String, String> environment(Map<String, String> env, EgressFiles egress) {
        return SandboxLayout.environment(env, egress != null, egress == null ? Map.of() : egress.env());
    }

    /**
     * Whether the egress bundle also goes over the root's system bundle: on the host root where the base has one; on
     * an image only over a regular file (never through a link the image chose); an engine image is not read here.
     */
    private static boolean overSystemBundle(RootImages.Root root, HostEtc etc) {
        return switch (root) {
            case RootImages.Root.Host h -> Files.isRegularFile(etc.base().resolve("ssl/certs/ca-certificates.crt"), LinkOption.NOFOLLOW_LINKS);
            case RootImages.Root.Paddock p -> Files.isRegularFile(p.rootfs().resolve("etc/ssl/certs/ca-certificates.crt"), LinkOption.NOFOLLOW_LINKS);
            case RootImages.Root.Local l -> false;
        };
    }

    private static void bind(ArrayNode mounts, Path source, String target, boolean readOnly) {
        ObjectNode m = mounts.addObject();
        m.put("Type", "bind").put("Source", source.toString()).put("Target", target).put("ReadOnly", readOnly);
        m.putObject("BindOptions").put("Propagation", "rprivate");
    }
}
