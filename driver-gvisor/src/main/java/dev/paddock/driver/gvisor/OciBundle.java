package dev.paddock.driver.gvisor;

import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.Workspace;
import dev.paddock.init.SandboxDirs;
import dev.paddock.init.SandboxEtc;
import dev.paddock.init.SandboxLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The OCI runtime spec ({@code config.json}) of one sandbox. init is the entrypoint, as an unprivileged uid with no
 * capabilities and no new privileges; runsc applies {@code linux.resources} to the sandbox's cgroup. The same spec
 * starts a sandbox and restores one from a checkpoint: restore needs the same mount points, whose host sources may
 * differ (a fork's own workspace).
 */
final class OciBundle {
    /** The uid (and gid) of every process in a sandbox; gVisor's kernel, not the host uid, separates sandboxes. */
    static final int SANDBOX_UID = 1000;
    private static final long CPU_PERIOD_US = 100_000;
    /**
     * The host cgroup's pids limit is only a backstop: the sandbox's processes are capped inside gVisor's kernel
     * (RLIMIT_NPROC), where a fork past the cap fails; the host limit also counts gVisor's own threads (and on ptrace
     * a host task per sandbox process), and reaching it stops the whole sandbox.
     */
    static long hostTasks(int pids) {
        return 16L * pids + 512;
    }
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** Root of the sandbox: the host's /usr with a reduced /etc over an empty root, or an image rootfs. */
    sealed interface Root {
        record Host(Path emptyRoot, Path etcBase, Path etcOwn) implements Root {}

        record Image(Path rootfs, boolean writable) implements Root {}
    }

    /** A sandbox's way out through the egress proxy (see BwrapArgs.Egress for the bwrap driver's equivalent). */
    record Egress(Path socketDir, String socketName, Path caBundle, boolean overSystemBundle, Map<String, String> env) {}

    private OciBundle() {}

    static void write(SandboxDirs paths, Path initBinary, String hostname, Root root, Map<String, String> env, Limits limits, Egress egress) {
        Map<String, Object> spec = spec(paths, initBinary, hostname, root, env, limits, egress);
        try {
            Files.writeString(paths.runDir().resolve("config.json"), JSON.writeValueAsString(spec));
        } catch (IOException e) {
            throw PaddockException.internal("cannot write the OCI bundle of sandbox " + paths.sandboxId() + ": " + e.getMessage(), e);
        }
    }

    static Map<String, Object> spec(SandboxDirs paths, Path initBinary, String hostname, Root root, Map<String, String> env, Limits limits, Egress egress) {
        List<String> args = new ArrayList<>(List.of(SandboxLayout.INIT_PATH, "serve", "--listen", SandboxLayout.CONTROL_DIR + "/" + SandboxLayout.CONTROL_SOCKET));
        if (egress != null) args.addAll(List.of("--egress", SandboxLayout.EGRESS_DIR + "/" + egress.socketName()));
        Map<String, Object> process = new LinkedHashMap<>();
        process.put("user", Map.of("uid", SANDBOX_UID, "gid", SANDBOX_UID));
        process.put("args", args);
        process.put("env", environment(env, egress));
        process.put("cwd", "/workspace");
        process.put("capabilities", Map.of());
        process.put("noNewPrivileges", true);
        // the process cap inside gVisor's kernel (see hostTasks)
        process.put("rlimits", List.of(Map.of("type", "RLIMIT_NOFILE", "hard", 4096, "soft", 4096),
                Map.of("type", "RLIMIT_NPROC", "hard", limits.pids(), "soft", limits.pids())));

        Path rootPath = switch (root) {
            case Root.Host h -> h.emptyRoot();
            case Root.Image i -> i.rootfs();
        };
        boolean writableRoot = root instanceof Root.Image i && i.writable();

        Map<String, Object> resources = new LinkedHashMap<>();
        resources.put("memory", Map.of("limit", limits.memoryBytes()));
        resources.put("pids", Map.of("limit", hostTasks(limits.pids())));
        resources.put("cpu", Map.of("quota", Math.round(limits.cpus() * CPU_PERIOD_US), "period", CPU_PERIOD_US));

        Map<String, Object> linux = new LinkedHashMap<>();
        linux.put("resources", resources);
        linux.put("cgroupsPath", cgroupsPath(paths.sandboxId()));
        linux.put("namespaces", List.of(Map.of("type", "pid"), Map.of("type", "network"), Map.of("type", "ipc"),
                Map.of("type", "uts"), Map.of("type", "mount")));

        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("ociVersion", "1.0.0");
        spec.put("process", process);
        spec.put("root", Map.of("path", rootPath.toString(), "readonly", !writableRoot));
        spec.put("hostname", hostname);
        spec.put("mounts", mounts(paths, initBinary, root, egress));
        spec.put("linux", linux);
        return spec;
    }

    private static List<String> environment(Map<String, String> env, Egress egress) {
        return SandboxLayout.environment(env, egress != null, egress == null ? Map.of() : egress.env()).entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toList();
    }

    private static List<Map<String, Object>> mounts(SandboxDirs paths, Path initBinary, Root root, Egress egress) {
        List<Map<String, Object>> m = new ArrayList<>();
        m.add(special("/proc", "proc"));
        m.add(special("/dev", "tmpfs"));
        m.add(special("/tmp", "tmpfs"));
        if (root instanceof Root.Host h) {
            m.add(bind("/usr", Path.of("/usr"), false));
            m.add(bind("/etc", h.etcBase(), false));
            m.add(bind("/etc/" + SandboxEtc.OWN_DIR, h.etcOwn(), false));
        }
        m.add(bind("/workspace", paths.workspace(), true));
        m.addAll(outputsMount(root, paths.outputs()));
        m.add(bind(SandboxLayout.INIT_PATH, initBinary, false));
        m.add(bind(SandboxLayout.CONTROL_DIR, paths.controlDir(), true));
        if (egress != null) {
            m.add(bind(SandboxLayout.EGRESS_DIR, egress.socketDir(), false));
            m.add(bind(SandboxLayout.CA_BUNDLE, egress.caBundle(), false));
            if (egress.overSystemBundle()) m.add(bind(SandboxLayout.SYSTEM_BUNDLE, egress.caBundle(), false));
        }
        return m;
    }

    /**
     * The per-sandbox outputs directory at /mnt/session/outputs. The empty host root has the mount point; a read-only
     * image gets a tmpfs over its /mnt first (one without /mnt has no outputs mount), a writable one gets it made.
     */
    private static List<Map<String, Object>> outputsMount(Root root, Path outputs) {
        Map<String, Object> bind = bind(Workspace.OUTPUTS, outputs, true);
        if (root instanceof Root.Image i && !i.writable()) {
            if (!Files.isDirectory(i.rootfs().resolve("mnt"), LinkOption.NOFOLLOW_LINKS)) return List.of();
            return List.of(special("/mnt", "tmpfs"), bind);
        }
        return List.of(bind);
    }

    private static Map<String, Object> special(String destination, String type) {
        return Map.of("destination", destination, "type", type, "source", type);
    }

    private static Map<String, Object> bind(String destination, Path source, boolean writable) {
        return Map.of("destination", destination, "type", "bind", "source", source.toString(),
                "options", List.of("rbind", writable ? "rw" : "ro"));
    }

    /**
     * Makes the empty root of sandboxes on the host's /usr: the mount points, and /bin, /sbin, /lib and /lib64 as
     * links into usr (the dynamic loader is reached through /lib64). Read-only inside; shared by all such sandboxes.
     */
    static Path emptyRoot(Path dir) {
        try {
            for (String d : List.of("usr", "etc", "proc", "dev", "tmp", "workspace", "mnt/session/outputs")) {
                Files.createDirectories(dir.resolve(d));
            }
            for (String l : List.of("bin", "sbin", "lib", "lib64")) {
                Path link = dir.resolve(l);
                if (!Files.exists(link, LinkOption.NOFOLLOW_LINKS)) Files.createSymbolicLink(link, Path.of("usr", l));
            }
            return dir;
        } catch (IOException e) {
            throw PaddockException.internal("cannot prepare the sandbox root " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The container's cgroups, under each hierarchy's root. */
    static String cgroupsPath(String sandboxId) {
        return "/paddock-gvisor/" + sandboxId;
    }
}
