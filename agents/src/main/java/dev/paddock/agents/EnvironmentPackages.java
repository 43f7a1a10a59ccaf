package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Workspace;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;

/**
 * An environment's {@code packages} (apt, pip, npm), installed once per distinct package list into a cached
 * archive and laid into each session's sandbox at {@code /workspace/.paddock/packages} before its first tool call.
 *
 * <p>The install runs in a builder sandbox of the session's tenant whose network reaches only the package
 * managers' hosts (and the configured mirrors), through the egress proxy like any sandbox: pip installs with
 * {@code --target}, npm with {@code --prefix}, and apt resolves what the host root lacks with its own lists and
 * unpacks those packages with {@code dpkg-deb -x} (no maintainer scripts run; no root needed). Sessions find them
 * through {@code PATH}, {@code PYTHONPATH}, {@code NODE_PATH} and {@code LD_LIBRARY_PATH}.
 */
final class EnvironmentPackages {
    static final String DIR = "/workspace/.paddock/packages";
    /** Where the builder gets the host root's apt sources and package status (beside, not inside, what is cached). */
    private static final String HOST_APT = "/workspace/.paddock/host-apt";
    static final List<String> MANAGERS = List.of("apt", "pip", "npm");
    static final Map<String, Pattern> NAMES = Map.of(
            "apt", Pattern.compile("[a-z0-9][a-z0-9+.-]{0,99}(=[A-Za-z0-9.+~:-]{1,64})?"),
            "pip", Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}(\\[[A-Za-z0-9,._-]{1,100}])?((==|>=|<=|~=|!=|<|>)[A-Za-z0-9.*+!-]{1,64})?"),
            "npm", Pattern.compile("(@[a-z0-9][a-z0-9._-]{0,99}/)?[a-z0-9][a-z0-9._-]{0,99}(@[A-Za-z0-9.^~<>=*|+ -]{1,64})?"));
    static final String NAME_SHAPE = "a package name, optionally with a version (apt name=1.2, pip name==1.2, npm name@1.2)";
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(20);
    private static final int OUTPUT_TAIL = 4000;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final RuntimeHost host;
    private final Path cacheDir;
    private final PackageMirrors mirrors;
    private final Map<String, Object> locks = new ConcurrentHashMap<>();

    EnvironmentPackages(RuntimeHost host, PackageMirrors mirrors) {
        this.host = host;
        this.cacheDir = host.config().dataDir().resolve("packages");
        this.mirrors = mirrors == null ? PackageMirrors.NONE : mirrors;
    }

    /** What a session's sandbox needs in its environment to find the packages (empty when there are none). */
    static Map<String, String> environment(Map<String, List<String>> wanted) {
        if (wanted.isEmpty()) return Map.of();
        return Map.of(
                "PATH", DIR + "/npm/node_modules/.bin:" + DIR + "/pip/bin:" + DIR + "/apt/usr/bin:" + DIR + "/apt/bin:"
                        + "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "PYTHONPATH", DIR + "/pip",
                "NODE_PATH", DIR + "/npm/node_modules",
                "LD_LIBRARY_PATH", DIR + "/apt/usr/lib/x86_64-linux-gnu:" + DIR + "/apt/lib/x86_64-linux-gnu:" + DIR + "/apt/usr/lib");
    }

    /** Builds and caches the packages unless they are cached already (for a first install: minutes). */
    void prepare(Principal owner, Map<String, List<String>> wanted) {
        if (!wanted.isEmpty()) built(owner, wanted);
    }

    /** Lays the packages into the sandbox's workspace, building (and caching) them first when needed. */
    void install(Principal owner, String sandboxId, Map<String, List<String>> wanted) {
        if (wanted.isEmpty()) return;
        Path archive = built(owner, wanted);
        try (InputStream in = Files.newInputStream(archive)) {
            host.workspace(owner, sandboxId).importTar(DIR, in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path built(Principal owner, Map<String, List<String>> wanted) {
        String key = key(wanted);
        Path archive = cacheDir.resolve(key + ".tar");
        synchronized (locks.computeIfAbsent(key, k -> new Object())) {
            if (Files.exists(archive)) return archive;
            try {
                Files.createDirectories(cacheDir);
            } catch (IOException e) {
                throw PaddockException.internal("cannot create " + cacheDir, e);
            }
            SandboxRecord builder = host.create(owner, new SandboxRequest(null, null, false, null, mirrors.environment(),
                    new NetworkPolicy(NetworkPolicy.Mode.LIMITED, mirrors.hosts(), true), BUILD_TIMEOUT.plusMinutes(5), null, null));
            Path partial = cacheDir.resolve(key + ".tar.partial");
            try {
                run(owner, builder.id(), "prepare", List.of("mkdir", "-p", DIR));
                if (wanted.containsKey("apt")) {
                    copyHostApt(host.workspace(owner, builder.id()), mirrors.aptSources());
                    run(owner, builder.id(), "apt", aptCommand(wanted.get("apt")));
                }
                if (wanted.containsKey("pip")) {
                    run(owner, builder.id(), "pip", concat(List.of("python3", "-m", "pip", "install", "--no-cache-dir",
                            "--disable-pip-version-check", "--no-input", "--target", DIR + "/pip", "--"), wanted.get("pip")));
                }
                if (wanted.containsKey("npm")) {
                    run(owner, builder.id(), "npm", concat(List.of("npm", "install", "--no-audit", "--no-fund", "--no-update-notifier",
                            "--cache", "/tmp/npm-cache", "--prefix", DIR + "/npm", "--"), wanted.get("npm")));
                }
                Workspace ws = host.workspace(owner, builder.id());
                try (OutputStream out = Files.newOutputStream(partial)) {
                    ws.exportTar(DIR, out);
                }
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
                return archive;
            } catch (IOException e) {
                throw PaddockException.internal("cannot cache the environment's packages", e);
            } finally {
                try {
                    Files.deleteIfExists(partial);
                } catch (IOException ignored) {
                    // the next build writes it again
                }
                host.delete(owner, builder.id());
                host.purge(owner, builder.id());
            }
        }
    }

    /**
     * apt with its own lists and the host root's package status: downloads what the host root lacks of the named
     * packages and their dependencies, and unpacks them under the packages directory. Names are arguments, never
     * shell text.
     */
    private static List<String> aptCommand(List<String> names) {
        String script = """
                set -eu
                A=/tmp/apt
                H=%s
                mkdir -p $A/etc/apt.conf.d $A/etc/preferences.d $A/lists/partial $A/archives/partial $A/log
                O="-o Dir::Etc=$A/etc -o Dir::Etc::SourceList=$H/sources.list -o Dir::Etc::SourceParts=$H/sources.list.d \
                   -o Dir::Etc::Parts=$A/etc/apt.conf.d -o Dir::Etc::PreferencesParts=$A/etc/preferences.d \
                   -o Dir::State=$A -o Dir::State::Lists=$A/lists -o Dir::State::status=$H/status \
                   -o Dir::Cache=$A -o Dir::Cache::archives=$A/archives -o Dir::Log=$A/log -o Debug::NoLocking=1"
                apt-get $O -q update
                apt-get $O -q -y --no-install-recommends install --download-only "$@"
                mkdir -p %s/apt
                for deb in $A/archives/*.deb; do [ -e "$deb" ] && dpkg-deb -x "$deb" %s/apt; done
                """.formatted(HOST_APT, DIR, DIR);
        return concat(List.of("/bin/sh", "-c", script, "paddock-apt"), names);
    }

    /**
     * The host root's apt sources and dpkg status, which a sandbox's reduced /etc and missing /var lack: apt then
     * fetches only what the root the sandboxes see does not have.
     */
    private static void copyHostApt(Workspace ws, Path sources) throws IOException {
        Path etc = Path.of("/etc/apt"), status = Path.of("/var/lib/dpkg/status");
        if (!Files.isRegularFile(status)) {
            throw new PaddockException(ErrorCode.PACKAGES_UNAVAILABLE, "apt packages need a Debian host root (" + status + " is missing)");
        }
        copy(ws, status, HOST_APT + "/status");
        if (sources != null) {
            // the operator's sources instead of the host's (a mirror)
            copy(ws, Path.of("/dev/null"), HOST_APT + "/sources.list");
            ws.mkdir(HOST_APT + "/sources.list.d");
            copy(ws, sources, HOST_APT + "/sources.list.d/paddock" + (sources.toString().endsWith(".sources") ? ".sources" : ".list"));
            return;
        }
        Path list = etc.resolve("sources.list");
        copy(ws, Files.isRegularFile(list) ? list : Path.of("/dev/null"), HOST_APT + "/sources.list");
        ws.mkdir(HOST_APT + "/sources.list.d");
        try (var parts = Files.list(etc.resolve("sources.list.d"))) {
            for (Path p : parts.filter(f -> f.toString().endsWith(".list") || f.toString().endsWith(".sources")).toList()) {
                copy(ws, p, HOST_APT + "/sources.list.d/" + p.getFileName());
            }
        } catch (NoSuchFileException none) {
            // sources.list alone
        }
    }

    private static void copy(Workspace ws, Path from, String to) throws IOException {
        try (InputStream in = Files.newInputStream(from)) {
            ws.write(to, in);
        }
    }

    private void run(Principal owner, String sandboxId, String step, List<String> argv) {
        BoundedBuffer tail = new BoundedBuffer(OUTPUT_TAIL, true); // stdout and stderr together: the end says what failed
        ExecOutput out = ExecOutput.into(tail, tail);
        // everything through the proxy, also a mirror on a loopback name: the builder's own loopback serves nothing
        ExecResult r = host.run(owner, sandboxId, new ExecRequest(argv, Map.of("NO_PROXY", "", "no_proxy", ""), "/workspace", BUILD_TIMEOUT, null), out);
        if (r.exitCode() != 0 || r.timedOut()) {
            throw new PaddockException(ErrorCode.PACKAGES_FAILED, "installing the environment's " + step + " packages failed"
                    + (r.timedOut() ? " (timed out after " + BUILD_TIMEOUT.toMinutes() + " minutes)" : " (exit " + r.exitCode() + ")")
                    + "; the end of its output:\n" + tail.text());
        }
    }

    private static String key(Map<String, List<String>> wanted) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(JSON.writeValueAsBytes(wanted));
            return HexFormat.of().formatHex(sha.digest()).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
