package dev.paddock.driver.bwrap;

import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The bubblewrap command line of one sandbox. Every namespace is unshared (user, ipc, pid, net, uts, cgroup),
 * all capabilities are dropped, nested user namespaces are disabled and the environment starts empty. There is
 * deliberately no {@code --die-with-parent}: a sandbox outlives the host process and ends with its init.
 */
final class BwrapArgs {
    /** Where the init agent appears inside every sandbox (on bwrap's private /dev tmpfs, so images need no mount point). */
    static final String INIT_PATH = "/dev/.paddock/init";
    /** The fd on which init reports that it serves; the launcher places it (see paddock-init.c), bwrap passes it on. */
    static final String READY_FD = "4";
    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    /** Root of the sandbox: the host's /usr and /etc, or an image rootfs (optionally behind a throwaway overlay). */
    sealed interface Root {
        /** The host's /usr and a reduced /etc: the shared base with the sandbox's own files on top (see SandboxEtc). */
        record Host(Path etcBase, Path etcOwn) implements Root {}

        record Image(Path rootfs, boolean writable) implements Root {}
    }

    private BwrapArgs() {}

    static List<String> build(Path bwrap, Path initBinary, Path workspace, String hostname, Root root, Map<String, String> env) {
        List<String> a = new ArrayList<>(List.of(bwrap.toString(),
                "--unshare-all", "--unshare-user", "--disable-userns",
                "--new-session", "--cap-drop", "ALL", "--as-pid-1",
                "--hostname", hostname,
                "--clearenv", "--setenv", "PATH", PATH, "--setenv", "HOME", "/workspace", "--setenv", "LANG", "C.UTF-8"));
        env.forEach((k, v) -> {
            checkEnv(k, v);
            a.addAll(List.of("--setenv", k, v));
        });
        switch (root) {
            case Root.Host h -> a.addAll(List.of("--ro-bind", "/usr", "/usr",
                    "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
                    "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                    "--ro-bind", h.etcBase().toString(), "/etc",
                    "--ro-bind", h.etcOwn().toString(), "/etc/" + SandboxEtc.OWN_DIR));
            case Root.Image i when i.writable() -> a.addAll(List.of("--overlay-src", i.rootfs().toString(), "--tmp-overlay", "/"));
            case Root.Image i -> a.addAll(List.of("--ro-bind", i.rootfs().toString(), "/"));
        }
        a.addAll(List.of("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                "--bind", workspace.toString(), "/workspace",
                "--ro-bind", initBinary.toString(), INIT_PATH,
                "--chdir", "/workspace",
                "--", INIT_PATH, "serve", READY_FD));
        return a;
    }

    static void checkEnv(String k, String v) {
        if (k == null || k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0) {
            throw PaddockException.invalid("invalid_env", "environment variable names must be non-empty without '=' or NUL, got '" + Text.clip(k, 60) + "'");
        }
        if (v == null || v.indexOf('\0') >= 0) {
            throw PaddockException.invalid("invalid_env", "the value of environment variable " + Text.clip(k, 60) + " must be a string without NUL");
        }
    }
}
