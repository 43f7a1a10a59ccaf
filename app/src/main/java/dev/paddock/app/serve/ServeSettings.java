package dev.paddock.app.serve;

import dev.paddock.agents.ModelPrices;
import dev.paddock.app.cli.Units;
import dev.paddock.core.spi.Limits;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Everything {@code paddock serve} can be told. Each key can be set in the config file (Java properties, e.g.
 * {@code port=7070}), as an environment variable ({@code PADDOCK_} + the key in upper case, e.g.
 * {@code PADDOCK_PORT}) or, for the common ones, as a flag. A flag beats the environment, which beats the file.
 * Unknown keys in the file are refused so a typo never silently falls back to a default.
 */
public record ServeSettings(
        Path dataDir,
        String bind,
        int port,
        String driver,
        String apiKey,
        Duration defaultTimeout,
        Duration maxTimeout,
        Duration idleSuspendAfter,
        Duration idleTerminateAfter,
        Duration operationTimeout,
        Duration sweepInterval,
        int warmPoolSize,
        int browserWarmPoolSize,
        long maxJsonBytes,
        long maxUploadBytes,
        Path bwrapPath,
        Path cgroupRoot,
        int bwrapUidBase,
        int bwrapUidCount,
        String dockerHost,
        String dockerRuntime,
        Path runscPath,
        String gvisorPlatform,
        String modelBaseUrl,
        String modelApiKey,
        boolean allowSandboxFree,
        String packagesPipIndexUrl,
        String packagesNpmRegistry,
        Path packagesAptSources,
        Set<Integer> egressTestLoopbackPorts,
        Path egressUpstreamCaFile,
        long defaultDisk,
        long maxDisk,
        long maxCheckpointSize,
        long tenantStorageQuota,
        String storeUrl,
        boolean mcpAllowPrivateHosts,
        ModelPrices modelPrices,
        String githubBaseUrl,
        Duration modelRetryBudget,
        KubernetesSettings kubernetes,
        String nodeUrl,
        Map<String, String> nodeLabels,
        Duration nodeLease,
        String clusterSecret,
        Duration terminalGrace,
        long terminalBuffer,
        Path checkpointDir) {

    public ServeSettings {
        if (maxDisk > 0 && defaultDisk > maxDisk) {
            throw new SettingsException("default_disk (" + defaultDisk + " bytes) must not exceed max_disk (" + maxDisk + " bytes)");
        }
    }

    /** Every key with its default ("" = none) and what it does: the reference printed by {@code serve --help}. */
    public static final Map<String, String[]> KEYS = keys();

    private static Map<String, String[]> keys() {
        Map<String, String[]> k = new LinkedHashMap<>();
        k.put("data_dir", new String[] {"~/.paddock", "paddock.db, sandboxes/, admin.key, … (/var/lib/paddock when ~ is closed to others, like /root)"});
        k.put("bind", new String[] {"127.0.0.1", "address to listen on"});
        k.put("port", new String[] {"7070", "port to listen on (0: any free port)"});
        k.put("driver", new String[] {"bwrap", "default driver: bwrap, gvisor, docker or kubernetes (subprocess: test mode only)"});
        k.put("api_key", new String[] {"", "admin key to register (16+ chars)"});
        k.put("default_timeout", new String[] {"1h", "sandbox lifetime if none is asked"});
        k.put("max_timeout", new String[] {"7d", "longest lifetime one may ask for"});
        k.put("idle_suspend_after", new String[] {"", "suspend sandboxes idle this long"});
        k.put("idle_terminate_after", new String[] {"", "terminate sandboxes idle this long"});
        k.put("operation_timeout", new String[] {"60s", "limit on create/suspend/checkpoint…"});
        k.put("sweep_interval", new String[] {"5s", "how often limits are enforced"});
        k.put("warm_pool_size", new String[] {"2", "sandboxes kept started for plain creates (0: none)"});
        k.put("browser_warm_pool_size", new String[] {"0", "browser sandboxes kept started, frozen"});
        k.put("max_json_body", new String[] {"1m", "largest JSON request body"});
        k.put("max_upload", new String[] {"1g", "largest file or archive upload"});
        k.put("default_disk", new String[] {"10g", "disk limit of /workspace + outputs if none is asked (0: none)"});
        k.put("max_disk", new String[] {"100g", "largest limits.disk one may ask for (0: no maximum)"});
        k.put("max_checkpoint_size", new String[] {"10g", "largest checkpoint archive (0: no limit)"});
        k.put("tenant_storage_quota", new String[] {"50g", "checkpoint and uploaded file bytes one tenant may keep (0: no limit)"});
        k.put("bwrap_path", new String[] {"/usr/bin/bwrap", "bubblewrap binary"});
        k.put("cgroup_root", new String[] {"/sys/fs/cgroup", "cgroup filesystem root"});
        k.put("bwrap_uid_base", new String[] {"200000", "first host uid for sandboxes"});
        k.put("bwrap_uid_count", new String[] {"50000", "number of host uids for sandboxes"});
        k.put("docker_host", new String[] {"", "Docker engine socket, unix:///… (default: $DOCKER_HOST, else /var/run/docker.sock)"});
        k.put("docker_runtime", new String[] {"runc", "OCI runtime of docker sandboxes: runc, or runsc (gVisor)"});
        k.put("runsc_path", new String[] {"/usr/bin/runsc", "gVisor's runsc, for the gvisor driver"});
        k.put("gvisor_platform", new String[] {"", "ptrace or kvm (default: kvm where /dev/kvm is usable)"});
        k.put("store_url", new String[] {"", "the store: postgresql://user:password@host:5432/db (secret; default: SQLite in the data dir)"});
        k.put("model_base_url", new String[] {"", "Messages API for agent sessions"});
        k.put("model_api_key", new String[] {"", "key for model_base_url (secret)"});
        k.put("model_retry_budget", new String[] {"2m", "how long a model request may be retried (429, 529, 5xx)"});
        k.put("allow_sandbox_free", new String[] {"false", "allow environments of type none"});
        k.put("model_prices", new String[] {"", "list prices for session budgets: model=input/output,… ($ per million tokens)"});
        k.put("packages_pip_index_url", new String[] {"", "pip index for environment packages"});
        k.put("packages_npm_registry", new String[] {"", "npm registry for environment packages"});
        k.put("packages_apt_sources", new String[] {"", "apt sources file for environment packages"});
        k.put("github_base_url", new String[] {"https://github.com/", "base that session repository urls must start with"});
        k.put("egress_upstream_ca_file", new String[] {"", "extra CAs (PEM) for upstream TLS"});
        k.put("egress_test_loopback_ports", new String[] {"", "TESTS ONLY: loopback ports egress may reach"});
        k.put("node_url", new String[] {"", "where the other nodes reach this server (PostgreSQL store; default: the bind address and port)"});
        k.put("node_labels", new String[] {"", "this node's labels for placement: key=value,… (PostgreSQL store)"});
        k.put("node_lease", new String[] {"15s", "a node that does not renew its lease this long is lost (PostgreSQL store)"});
        k.put("cluster_secret", new String[] {"", "the nodes' shared secret for forwarded requests (secret; default: made once, kept in the database)"});
        k.put("mcp_allow_private_hosts", new String[] {"false", "let agents' MCP servers be on private/loopback addresses"});
        k.put("kubernetes_namespace", new String[] {"", "namespace of kubernetes sandboxes (default: the kubeconfig's, else default)"});
        k.put("kubernetes_installation", new String[] {"paddock", "label value that marks this installation's kubernetes objects"});
        k.put("kubernetes_runtime_class", new String[] {"", "RuntimeClass of sandbox pods, e.g. gvisor or kata (default: the cluster's)"});
        k.put("kubernetes_storage_class", new String[] {"", "StorageClass of workspace claims (default: the cluster's)"});
        k.put("kubernetes_image", new String[] {"debian:stable-slim", "container image of kubernetes sandboxes that name none"});
        k.put("kubernetes_workspace_size", new String[] {"1Gi", "size of each kubernetes sandbox's workspace claim"});
        k.put("kubernetes_agent_sandbox", new String[] {"false", "make agent-sandbox Sandbox objects instead of Pods: false, auto (where the cluster serves them) or true (refuse to start without them)"});
        k.put("kubernetes_warm_pool_size", new String[] {"0", "pods an agent-sandbox SandboxWarmPool keeps ready for creates of the pool's shape (0: no pool; needs kubernetes_agent_sandbox and agent-sandbox's extensions)"});
        k.put("kubernetes_warm_pool_cpus", new String[] {"", "the CPU limit of the warm pool's pods, and of the creates it serves (default: a create's default)"});
        k.put("kubernetes_warm_pool_memory", new String[] {"", "the memory limit of the warm pool's pods, e.g. 512Mi (default: a create's default)"});
        k.put("kubernetes_egress_listen", new String[] {"", "host:port this server takes kubernetes sandboxes' egress on, e.g. 0.0.0.0:3128 (empty: they have network none only)"});
        k.put("kubernetes_egress_proxy", new String[] {"", "host:port sandbox pods dial for the egress proxy: a Service in front of every server's egress port, or this server pod's address"});
        k.put("kubernetes_egress_advertise", new String[] {"", "host:port other servers reach this server's egress port at (its pod address); empty: kubernetes_egress_proxy"});
        k.put("kubernetes_egress_server_namespace", new String[] {"paddock", "namespace of the server pods that sandbox pods may reach (the egress proxy)"});
        k.put("kubernetes_egress_server_labels", new String[] {"app.kubernetes.io/name=paddock-server", "labels of those server pods: key=value,…"});
        k.put("terminal_grace", new String[] {"5m", "how long a terminal lives on with no client attached"});
        k.put("terminal_buffer", new String[] {"1m", "output a terminal keeps while no client is attached"});
        k.put("checkpoint_dir", new String[] {"", "where checkpoint archives are kept; nodes that share it (a shared filesystem) can restore each other's sandboxes (default: <data_dir>/checkpoints)"});
        return Collections.unmodifiableMap(k);
    }

    /**
     * Resolves the settings. {@code flags} holds only what was given on the command line; {@code configFile} may be
     * null (then {@code <data-dir>/paddock.properties} is read when it exists).
     */
    public static ServeSettings resolve(Map<String, String> flags, Map<String, String> env, Path configFile, Path home) {
        Map<String, String> values = new LinkedHashMap<>();
        KEYS.forEach((key, meta) -> values.put(key, meta[0]));
        values.put("data_dir", DataDir.defaultFor(home).toString());

        String earlyDir = firstNonBlank(flags.get("data_dir"), env.get("PADDOCK_DATA_DIR"));
        Path file = configFile;
        boolean explicit = true;
        if (file == null && env.get("PADDOCK_CONFIG") != null && !env.get("PADDOCK_CONFIG").isBlank()) file = Path.of(env.get("PADDOCK_CONFIG"));
        if (file == null) {
            explicit = false;
            file = Path.of(earlyDir != null ? earlyDir : values.get("data_dir")).resolve("paddock.properties");
        }
        values.putAll(readFile(file, explicit));
        KEYS.keySet().forEach(key -> {
            String v = env.get("PADDOCK_" + key.toUpperCase(Locale.ROOT));
            if (v != null && !v.isBlank()) values.put(key, v);
        });
        flags.forEach((key, v) -> { if (v != null) values.put(key, v); });
        return parse(values, home);
    }

    private static ServeSettings parse(Map<String, String> v, Path home) {
        return new ServeSettings(
                path(v.get("data_dir"), home),
                nonBlank("bind", v.get("bind")),
                port(v.get("port")),
                nonBlank("driver", v.get("driver")).toLowerCase(Locale.ROOT),
                blankToNull(v.get("api_key")),
                duration("default_timeout", v.get("default_timeout")),
                duration("max_timeout", v.get("max_timeout")),
                duration("idle_suspend_after", v.get("idle_suspend_after")),
                duration("idle_terminate_after", v.get("idle_terminate_after")),
                duration("operation_timeout", v.get("operation_timeout")),
                duration("sweep_interval", v.get("sweep_interval")),
                nonNegative("warm_pool_size", integer("warm_pool_size", v.get("warm_pool_size"))),
                nonNegative("browser_warm_pool_size", integer("browser_warm_pool_size", v.get("browser_warm_pool_size"))),
                size("max_json_body", v.get("max_json_body")),
                size("max_upload", v.get("max_upload")),
                path(v.get("bwrap_path"), home),
                path(v.get("cgroup_root"), home),
                integer("bwrap_uid_base", v.get("bwrap_uid_base")),
                integer("bwrap_uid_count", v.get("bwrap_uid_count")),
                blankToNull(v.get("docker_host")),
                nonBlank("docker_runtime", v.get("docker_runtime")),
                path(v.get("runsc_path"), home),
                blankToNull(v.get("gvisor_platform")),
                blankToNull(v.get("model_base_url")),
                blankToNull(v.get("model_api_key")),
                bool("allow_sandbox_free", v.get("allow_sandbox_free")),
                blankToNull(v.get("packages_pip_index_url")),
                blankToNull(v.get("packages_npm_registry")),
                blankToNull(v.get("packages_apt_sources")) == null ? null : path(v.get("packages_apt_sources"), home),
                ports("egress_test_loopback_ports", v.get("egress_test_loopback_ports")),
                blankToNull(v.get("egress_upstream_ca_file")) == null ? null : path(v.get("egress_upstream_ca_file"), home),
                disk("default_disk", v.get("default_disk")),
                limit("max_disk", v.get("max_disk")),
                limit("max_checkpoint_size", v.get("max_checkpoint_size")),
                limit("tenant_storage_quota", v.get("tenant_storage_quota")),
                blankToNull(v.get("store_url")),
                bool("mcp_allow_private_hosts", v.get("mcp_allow_private_hosts")),
                modelPrices(v.get("model_prices")),
                baseUrl("github_base_url", v.get("github_base_url")),
                duration("model_retry_budget", v.get("model_retry_budget")),
                new KubernetesSettings(blankToNull(v.get("kubernetes_namespace")), nonBlank("kubernetes_installation", v.get("kubernetes_installation")),
                        blankToNull(v.get("kubernetes_runtime_class")), blankToNull(v.get("kubernetes_storage_class")),
                        blankToNull(v.get("kubernetes_image")), blankToNull(v.get("kubernetes_workspace_size")),
                        KubernetesSettings.agentSandbox(v.get("kubernetes_agent_sandbox")),
                        KubernetesSettings.egress(blankToNull(v.get("kubernetes_egress_listen")), blankToNull(v.get("kubernetes_egress_proxy")),
                                blankToNull(v.get("kubernetes_egress_advertise")), blankToNull(v.get("kubernetes_egress_server_namespace")),
                                v.get("kubernetes_egress_server_labels")),
                        KubernetesSettings.warmPool(v.get("kubernetes_warm_pool_size"), v.get("kubernetes_warm_pool_cpus"),
                                v.get("kubernetes_warm_pool_memory"), blankToNull(v.get("kubernetes_image")), disk("default_disk", v.get("default_disk")))),
                blankToNull(v.get("node_url")) == null ? null : baseUrl("node_url", v.get("node_url")),
                labels("node_labels", v.get("node_labels")),
                nodeLease(v.get("node_lease")),
                secret("cluster_secret", v.get("cluster_secret")),
                duration("terminal_grace", v.get("terminal_grace")),
                size("terminal_buffer", v.get("terminal_buffer")),
                blankToNull(v.get("checkpoint_dir")) == null ? null : path(v.get("checkpoint_dir"), home));
    }

    private static Map<String, String> readFile(Path file, boolean explicit) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (NoSuchFileException e) {
            if (explicit) throw new SettingsException("config file " + file + " does not exist");
            return Map.of();
        } catch (IOException | IllegalArgumentException e) {
            throw new SettingsException("cannot read config file " + file + ": " + e.getMessage());
        }
        Map<String, String> out = new LinkedHashMap<>();
        TreeSet<String> unknown = new TreeSet<>();
        for (String key : p.stringPropertyNames()) {
            if (KEYS.containsKey(key)) out.put(key, p.getProperty(key).trim());
            else unknown.add(key);
        }
        if (!unknown.isEmpty()) {
            throw new SettingsException("unknown key(s) in " + file + ": " + String.join(", ", unknown) + "; known keys: " + String.join(", ", KEYS.keySet()));
        }
        return out;
    }

    private static ModelPrices modelPrices(String s) {
        try {
            return ModelPrices.parse(s);
        } catch (IllegalArgumentException e) {
            throw new SettingsException(e.getMessage());
        }
    }

    /** An http(s) URL with a host, ending in '/', that other URLs are checked to start with. */
    private static String baseUrl(String key, String s) {
        String v = nonBlank(key, s);
        URI uri;
        try {
            uri = new URI(v);
        } catch (URISyntaxException e) {
            throw new SettingsException(key + " must be an http:// or https:// URL, got '" + v + "'");
        }
        if (!("https".equals(uri.getScheme()) || "http".equals(uri.getScheme())) || uri.getHost() == null || uri.getRawUserInfo() != null
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new SettingsException(key + " must be an http:// or https:// URL with a host and no credentials, query or fragment, got '" + v + "'");
        }
        return v.endsWith("/") ? v : v + "/";
    }

    /** key=value pairs separated by commas; keys and values of letters, digits, '.', '_' and '-'. */
    private static Map<String, String> labels(String key, String s) {
        Map<String, String> out = new LinkedHashMap<>();
        if (s == null || s.isBlank()) return out;
        for (String part : s.split(",")) {
            String[] kv = part.strip().split("=", 2);
            if (kv.length != 2 || !kv[0].strip().matches("[A-Za-z0-9._-]{1,63}") || !kv[1].strip().matches("[A-Za-z0-9._-]{0,63}")) {
                throw new SettingsException(key + " must be key=value pairs separated by commas (letters, digits, '.', '_', '-'), got '" + s + "'");
            }
            out.put(kv[0].strip(), kv[1].strip());
        }
        return out;
    }

    private static Duration nodeLease(String s) {
        Duration d = duration("node_lease", s);
        if (d == null || d.compareTo(Duration.ofSeconds(1)) < 0) throw new SettingsException("node_lease must be at least 1s, got '" + s + "'");
        return d;
    }

    private static String secret(String key, String s) {
        String v = blankToNull(s);
        if (v != null && v.length() < 32) throw new SettingsException(key + " must be at least 32 characters long");
        return v;
    }

    private static int port(String s) {
        try {
            int p = Integer.parseInt(s.trim());
            if (p < 0 || p > 65535) throw new NumberFormatException();
            return p;
        } catch (NumberFormatException e) {
            throw new SettingsException("port must be a number from 0 to 65535, got '" + s + "'");
        }
    }

    private static boolean bool(String key, String s) {
        String t = s == null ? "" : s.trim().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0", "" -> false;
            default -> throw new SettingsException(key + " must be true or false, got '" + s + "'");
        };
    }

    private static Set<Integer> ports(String key, String s) {
        Set<Integer> out = new TreeSet<>();
        if (s == null || s.isBlank()) return out;
        for (String part : s.split(",")) {
            int port = integer(key, part.strip());
            if (port < 1 || port > 65535) throw new SettingsException(key + " must list ports 1-65535 separated by commas, got '" + s + "'");
            out.add(port);
        }
        return out;
    }

    private static int nonNegative(String key, int value) {
        if (value < 0) throw new SettingsException(key + " must not be negative, got " + value);
        return value;
    }

    private static int integer(String key, String s) {
        try {
            return Integer.parseInt(s.trim());
        } catch (NumberFormatException e) {
            throw new SettingsException(key + " must be a whole number, got '" + s + "'");
        }
    }

    private static Duration duration(String key, String s) {
        if (s == null || s.isBlank() || s.equalsIgnoreCase("none")) return null;
        try {
            return Units.duration(s);
        } catch (IllegalArgumentException e) {
            throw new SettingsException(key + ": " + e.getMessage());
        }
    }

    /** A size where 0 (or "none") means no limit. */
    private static long limit(String key, String s) {
        if (s == null || s.isBlank() || s.strip().equalsIgnoreCase("none") || s.strip().equals("0")) return 0;
        return size(key, s);
    }

    private static long disk(String key, String s) {
        long bytes = limit(key, s);
        if (bytes != 0 && bytes < Limits.MIN_DISK_BYTES) throw new SettingsException(key + ": must be 0 (none) or at least 32m");
        return bytes;
    }

    private static long size(String key, String s) {
        try {
            return Units.size(s);
        } catch (IllegalArgumentException e) {
            throw new SettingsException(key + ": " + e.getMessage());
        }
    }

    private static Path path(String s, Path home) {
        String t = s.trim();
        if (t.equals("~")) return home;
        if (t.startsWith("~/")) return home.resolve(t.substring(2));
        return Path.of(t).toAbsolutePath().normalize();
    }

    private static String nonBlank(String key, String s) {
        if (s == null || s.isBlank()) throw new SettingsException(key + " must not be empty");
        return s.trim();
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    private static String firstNonBlank(String a, String b) {
        if (a != null && !a.isBlank()) return a;
        return b != null && !b.isBlank() ? b : null;
    }

    /** A setting that cannot be used; the message names the key and what is wrong. */
    public static final class SettingsException extends RuntimeException {
        public SettingsException(String message) {
            super(message);
        }
    }
}
