package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.Workspace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bubblewrap command line of one sandbox. Every namespace is unshared (user, ipc, pid, net, uts, cgroup),
 * all capabilities are dropped, nested user namespaces are disabled, the seccomp filter applies (see
 * init-agent/src/main/c/paddock-seccomp.h) and the environment starts empty. There is
 * deliberately no {@code --die-with-parent}: a sandbox outlives the host process and ends with its init.
 */
final class BwrapArgs {
    /** Where the init agent appears inside every sandbox (on bwrap's private /dev tmpfs, so images need no mount point). */
    static final String INIT_PATH = "/dev/.paddock/init";
    /** The fd on which init reports that it serves; the launcher places it (see paddock-init.c), bwrap passes it on. */
    static final String READY_FD = "4";
    /** The fd from which bwrap reads the seccomp filter; the launcher places it there when told {@code --seccomp}. */
    static final String SECCOMP_FD = "5";
    static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    /** Root of the sandbox: the host's /usr and /etc, or an image rootfs (optionally behind a throwaway overlay). */
    sealed interface Root {
        /** The host's /usr and a reduced /etc: the shared base with the sandbox's own files on top (see SandboxEtc). */
        record Host(Path etcBase, Path etcOwn) implements Root {}

        record Image(Path rootfs, boolean writable) implements Root {}
    }

    /**
     * A sandbox's way out: the egress proxy's socket directory, bound read-only at {@link #EGRESS_DIR} (the
     * directory, not the socket: a restarted host re-creates the socket in it), the CA bundle to trust (system CAs
     * plus the installation CA), whether it also goes over the root's system bundle, and placeholder variables.
     */
    record Egress(Path socketDir, String socketName, Path caBundle, boolean overSystemBundle, Map<String, String> env) {}

    /** Where the socket directory and the CA bundle appear (on bwrap's /dev tmpfs, like init: images need nothing). */
    static final String EGRESS_DIR = "/dev/.paddock/egress";
    static final String CA_BUNDLE = "/dev/.paddock/ca-certificates.crt";
    static final String SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
    /** The forwarder init runs on the sandbox's own loopback (see paddock-init.c). */
    static final String PROXY_URL = "http://127.0.0.1:3128";

    static final String OUTPUTS_PATH = Workspace.OUTPUTS;

    private BwrapArgs() {}

    static List<String> build(Path bwrap, Path initBinary, Path workspace, String hostname, Root root, Map<String, String> env) {
        return build(bwrap, initBinary, workspace, hostname, root, env, null);
    }

    static List<String> build(Path bwrap, Path initBinary, Path workspace, String hostname, Root root, Map<String, String> env, Egress egress) {
        List<String> a = new ArrayList<>(List.of(bwrap.toString(),
                "--unshare-all", "--unshare-user", "--disable-userns",
                "--new-session", "--cap-drop", "ALL", "--seccomp", SECCOMP_FD, "--as-pid-1",
                "--hostname", hostname,
                "--clearenv", "--setenv", "PATH", PATH, "--setenv", "HOME", "/workspace", "--setenv", "LANG", "C.UTF-8"));
        if (egress != null) proxyEnvironment().forEach((k, v) -> a.addAll(List.of("--setenv", k, v)));
        env.forEach((k, v) -> {
            checkEnv(k, v);
            a.addAll(List.of("--setenv", k, v));
        });
        if (egress != null) {
            // placeholders last: nothing in the request's env can shadow them
            egress.env().forEach((k, v) -> {
                checkEnv(k, v);
                a.addAll(List.of("--setenv", k, v));
            });
        }
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
                "--ro-bind", initBinary.toString(), INIT_PATH));
        a.addAll(outputsMount(root, workspace.resolveSibling("outputs")));
        if (egress != null) {
            a.addAll(List.of("--ro-bind", egress.socketDir().toString(), EGRESS_DIR,
                    "--ro-bind", egress.caBundle().toString(), CA_BUNDLE));
            if (egress.overSystemBundle()) a.addAll(List.of("--ro-bind", egress.caBundle().toString(), SYSTEM_BUNDLE));
        }
        a.addAll(List.of("--chdir", "/workspace", "--", INIT_PATH, "serve", READY_FD));
        if (egress != null) a.addAll(List.of("--egress", EGRESS_DIR + "/" + egress.socketName()));
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

    /** Standard tools find the proxy and the CA bundle through these; localhost stays direct. */
    static Map<String, String> proxyEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String k : List.of("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")) {
            env.put(k, PROXY_URL);
            env.put(k.toLowerCase(Locale.ROOT), PROXY_URL);
        }
        env.put("NO_PROXY", "localhost,127.0.0.1");
        env.put("no_proxy", "localhost,127.0.0.1");
        for (String k : List.of("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_CERT")) env.put(k, CA_BUNDLE);
        return env;
    }

    static void checkEnv(String k, String v) {
        if (k == null || k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0) {
            throw new PaddockException(ErrorCode.INVALID_ENV, "environment variable names must be non-empty without '=' or NUL, got '" + Text.clip(k, 60) + "'");
        }
        if (v == null || v.indexOf('\0') >= 0) {
            throw new PaddockException(ErrorCode.INVALID_ENV, "the value of environment variable " + Text.clip(k, 60) + " must be a string without NUL");
        }
    }
}
