package dev.paddock.driver.bwrap;

import dev.paddock.core.spi.Workspace;
import dev.paddock.init.SandboxEtc;
import dev.paddock.init.SandboxLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The bubblewrap command line of one sandbox. Every namespace is unshared (user, ipc, pid, net, uts, cgroup),
 * all capabilities are dropped, nested user namespaces are disabled, the seccomp filter applies (see
 * init-agent/src/main/c/paddock-seccomp.h) and the environment starts empty. There is
 * deliberately no {@code --die-with-parent}: a sandbox outlives the host process and ends with its init.
 */
final class BwrapArgs {
    /** The fd on which init reports that it serves; the launcher places it (see paddock-init.c), bwrap passes it on. */
    static final String READY_FD = "4";
    /** The fd from which bwrap reads the seccomp filter; the launcher places it there when told {@code --seccomp}. */
    static final String SECCOMP_FD = "5";

    /** Root of the sandbox: the host's /usr and /etc, or an image rootfs (optionally behind a throwaway overlay). */
    sealed interface Root {
        /** The host's /usr and a reduced /etc: the shared base with the sandbox's own files on top (see SandboxEtc). */
        record Host(Path etcBase, Path etcOwn) implements Root {}

        record Image(Path rootfs, boolean writable) implements Root {}
    }

    /**
     * A sandbox's way out: the egress proxy's socket directory, bound read-only at {@link SandboxLayout#EGRESS_DIR} (the
     * directory, not the socket: a restarted host re-creates the socket in it), the CA bundle to trust (system CAs
     * plus the installation CA), whether it also goes over the root's system bundle, and placeholder variables.
     */
    record Egress(Path socketDir, String socketName, Path caBundle, boolean overSystemBundle, Map<String, String> env) {}


    static final String OUTPUTS_PATH = Workspace.OUTPUTS;

    private BwrapArgs() {}

    static List<String> build(Path bwrap, Path initBinary, Path workspace, String hostname, Root root, Map<String, String> env) {
        return build(bwrap, initBinary, workspace, hostname, root, env, null);
    }

    static List<String> build(Path bwrap, Path initBinary, Path workspace, String hostname, Root root, Map<String, String> env, Egress egress) {
        // no --disable-userns: the seccomp filter refuses every way to a new user namespace, and bwrap's own refusal
        // (a nested user namespace whose sysctl it writes) costs each start a lookup that grows with the number of
        // sandboxes on the host (docs/BENCHMARKS.md, ManySandboxesBench)
        List<String> a = new ArrayList<>(List.of(bwrap.toString(),
                "--unshare-all", "--unshare-user",
                "--new-session", "--cap-drop", "ALL", "--seccomp", SECCOMP_FD, "--as-pid-1",
                "--hostname", hostname,
                "--clearenv"));
        SandboxLayout.environment(env, egress != null, egress == null ? Map.of() : egress.env())
                .forEach((k, v) -> a.addAll(List.of("--setenv", k, v)));
        switch (root) {
            // /tmp is a directory on bwrap's root tmpfs, not a tmpfs of its own: the same memory-backed, throwaway
            // /tmp, one superblock fewer. Every superblock costs every memory cgroup on the host a shrinker slot, so
            // each one a sandbox mounts makes the next sandbox dearer (docs/BENCHMARKS.md, ManySandboxesBench).
            case Root.Host h -> a.addAll(List.of("--ro-bind", "/usr", "/usr",
                    "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
                    "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                    "--ro-bind", h.etcBase().toString(), "/etc",
                    "--ro-bind", h.etcOwn().toString(), "/etc/" + SandboxEtc.OWN_DIR,
                    "--perms", "1777", "--dir", "/tmp"));
            case Root.Image i when i.writable() -> a.addAll(List.of("--overlay-src", i.rootfs().toString(), "--tmp-overlay", "/",
                    "--tmpfs", "/tmp"));
            case Root.Image i -> a.addAll(List.of("--ro-bind", i.rootfs().toString(), "/", "--tmpfs", "/tmp"));
        }
        a.addAll(List.of("--proc", "/proc", "--dev", "/dev",
                "--bind", workspace.toString(), "/workspace",
                "--ro-bind", initBinary.toString(), SandboxLayout.INIT_PATH));
        a.addAll(outputsMount(root, workspace.resolveSibling("outputs")));
        if (egress != null) {
            a.addAll(List.of("--ro-bind", egress.socketDir().toString(), SandboxLayout.EGRESS_DIR,
                    "--ro-bind", egress.caBundle().toString(), SandboxLayout.CA_BUNDLE));
            if (egress.overSystemBundle()) a.addAll(List.of("--ro-bind", egress.caBundle().toString(), SandboxLayout.SYSTEM_BUNDLE));
        }
        a.addAll(List.of("--chdir", "/workspace", "--", SandboxLayout.INIT_PATH, "serve", READY_FD));
        if (egress != null) a.addAll(List.of("--egress", SandboxLayout.EGRESS_DIR + "/" + egress.socketName()));
        return a;
    }

    /**
     * The per-sandbox outputs directory (next to the workspace, see SandboxPaths) at /mnt/session/outputs. bwrap
     * makes the mount point itself on the host root (a tmpfs) and on a writable image; a read-only image gets a
     * tmpfs over its /mnt first, and one without /mnt has no outputs mount (nothing to mount on).
     */
    static List<String> outputsMount(Root root, Path outputs) {
        List<String> bind = List.of("--bind", outputs.toString(), OUTPUTS_PATH);
        if (root instanceof Root.Image i && !i.writable()) {
            if (!Files.isDirectory(i.rootfs().resolve("mnt"))) return List.of();
            List<String> a = new ArrayList<>(List.of("--tmpfs", "/mnt"));
            a.addAll(bind);
            return a;
        }
        return bind;
    }

}
