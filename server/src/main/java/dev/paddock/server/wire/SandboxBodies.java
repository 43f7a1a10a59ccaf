package dev.paddock.server.wire;

import dev.paddock.browser.BrowserTemplate;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.egress.HostPattern;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.host.SandboxRequest;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/** Checks a create-sandbox body field by field and turns it into the host's {@link SandboxRequest}. */
public final class SandboxBodies {
    private static final Pattern DRIVER = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
    private static final long MAX_SECONDS = 10L * 366 * 24 * 3600;
    private static final int MAX_PIDS = 1 << 22;
    private static final double MAX_CPUS = 1024;
    private static final int MAX_ALLOWED_HOSTS = 256;
    private static final int MAX_NODE_LABELS = 32;

    private SandboxBodies() {}

    /**
     * The checkpoint a sandbox starts from; such a sandbox takes every setting of the checkpoint's sandbox, so a body
     * that names any other field is refused rather than half followed.
     */
    public static String fromCheckpoint(CreateSandboxBody b) {
        if (b.fromSnapshot() != null) throw Check.invalid("from_checkpoint", "and from_snapshot cannot both be given; pick one");
        requireNoSettings(b, "from_checkpoint");
        return b.fromCheckpoint();
    }

    /** The snapshot a create starts from; like a checkpoint, it brings the settings of its sandbox. */
    public static String fromSnapshot(CreateSandboxBody b) {
        requireNoSettings(b, "from_snapshot");
        return b.fromSnapshot();
    }

    private static void requireNoSettings(CreateSandboxBody b, String field) {
        boolean others = b.driver() != null || b.image() != null || b.writableRootfs() != null || b.limits() != null || b.env() != null
                || b.network() != null || b.timeoutSeconds() != null || b.idle() != null || b.credentials() != null
                || b.template() != null || b.browser() != null;
        if (others) throw Check.invalid(field, "takes the settings of the checkpoint's sandbox; leave out the other fields");
    }

    /**
     * The node labels a create asks for ({@code placement.node_labels}), recorded with the sandbox so that a
     * relocation asks them again; at most {@link #MAX_NODE_LABELS}, names and values up to 128 characters.
     */
    public static Map<String, String> nodeLabels(CreateSandboxBody b) {
        Map<String, String> labels = b.placement() == null || b.placement().nodeLabels() == null ? Map.of() : b.placement().nodeLabels();
        if (labels.size() > MAX_NODE_LABELS) throw Check.invalid("placement.node_labels", "may hold at most " + MAX_NODE_LABELS + " labels");
        for (Map.Entry<String, String> e : labels.entrySet()) {
            if (e.getKey().isEmpty() || e.getKey().length() > 128 || e.getValue() == null || e.getValue().length() > 128) {
                throw Check.invalid("placement.node_labels", "takes names and string values of 1 to 128 characters, got '"
                        + Text.clip(e.getKey(), 40) + "'");
            }
        }
        return labels;
    }

    public static SandboxRequest toRequest(CreateSandboxBody b) {
        return toRequest(b, Limits.DEFAULT);
    }

    /** {@code base}: the limits of the chosen driver, which a limit the body leaves out keeps. */
    public static SandboxRequest toRequest(CreateSandboxBody b, Limits base) {
        String driver = b.driver();
        if (driver != null && !DRIVER.matcher(driver).matches()) {
            throw Check.invalid("driver", "must be a driver id such as \"bwrap\" (see GET /v1/drivers), got '" + Text.clip(driver, 40) + "'");
        }
        String image = b.image();
        if (image != null) {
            if (image.isBlank() || image.length() > 256) throw Check.invalid("image", "must be 1 to 256 characters");
            Check.noNul("image", image);
        }
        Map<String, String> env = Check.env("env", b.env());
        NetworkPolicy network = network(b.network());
        List<CredentialBinding> credentials = CredentialBodies.toBindings(b.credentials(), env.keySet(), network);
        SandboxRequest request = new SandboxRequest(driver, image, Boolean.TRUE.equals(b.writableRootfs()), limits(b.limits(), base),
                env, network, seconds("timeout_seconds", b.timeoutSeconds()),
                b.idle() == null ? null : seconds("idle.suspend_after_seconds", b.idle().suspendAfterSeconds()),
                b.idle() == null ? null : seconds("idle.terminate_after_seconds", b.idle().terminateAfterSeconds()))
                .withCredentials(credentials);
        // a "browser" object alone asks for the browser template too; the host refuses a template it does not have
        if (b.template() != null && !BrowserTemplate.NAME.equals(b.template())) return request.withTemplate(b.template());
        if (b.template() == null && b.browser() == null) return request;
        return BrowserTemplate.request(request, b.browser() != null && Boolean.TRUE.equals(b.browser().allowEvaluate()));
    }

    private static Limits limits(CreateSandboxBody.LimitsBody l, Limits d) {
        if (l == null) return null;
        long memory = l.memory() == null || l.memory().isNull() ? d.memoryBytes() : MemorySize.parse("limits.memory", l.memory());
        int pids = l.pids() == null ? d.pids() : (int) Check.range("limits.pids", (long) l.pids(), 8, MAX_PIDS);
        double cpus = d.cpus();
        if (l.cpus() != null) {
            cpus = l.cpus();
            if (!Double.isFinite(cpus) || cpus <= 0 || cpus > MAX_CPUS) {
                throw Check.invalid("limits.cpus", "must be a number greater than 0 and at most " + (int) MAX_CPUS + ", got " + l.cpus());
            }
        }
        long disk = l.disk() == null || l.disk().isNull() ? 0 : MemorySize.parse("limits.disk", l.disk());
        if (disk != 0 && disk < Limits.MIN_DISK_BYTES) throw Check.invalid("limits.disk", "must be at least 32m, got " + disk + " bytes");
        return new Limits(memory, pids, cpus, disk);
    }

    /** The body of {@code PATCH /v1/sandboxes/{id}/network}: the same object and checks as a create's {@code network}. */
    public static NetworkPolicy networkChange(CreateSandboxBody.NetworkBody n) {
        if (n.type() == null) throw new PaddockException(ErrorCode.MISSING_FIELD, "field 'type' is required: none, limited or unrestricted");
        return network(n);
    }

    private static NetworkPolicy network(CreateSandboxBody.NetworkBody n) {
        if (n == null) return null;
        String type = n.type() == null ? "none" : n.type();
        NetworkPolicy.Mode mode;
        try {
            mode = NetworkPolicy.Mode.valueOf(type.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw Check.invalid("network.type", "must be one of none, limited, unrestricted; got '" + Text.clip(type, 40) + "'");
        }
        List<String> hosts = n.allowedHosts() == null ? List.of() : n.allowedHosts();
        boolean packageManagers = Boolean.TRUE.equals(n.allowPackageManagers());
        if (!hosts.isEmpty() && mode != NetworkPolicy.Mode.LIMITED) {
            throw Check.invalid("network.allowed_hosts", "is only allowed with network.type \"limited\"");
        }
        if (packageManagers && mode != NetworkPolicy.Mode.LIMITED) {
            throw Check.invalid("network.allow_package_managers", "is only allowed with network.type \"limited\"");
        }
        if (hosts.size() > MAX_ALLOWED_HOSTS) throw Check.invalid("network.allowed_hosts", "may hold at most " + MAX_ALLOWED_HOSTS + " entries");
        for (int i = 0; i < hosts.size(); i++) {
            String h = hosts.get(i);
            if (h == null || h.isBlank() || h.length() > 260) throw Check.invalid("network.allowed_hosts[" + i + "]", "must be a host name");
            Check.noNul("network.allowed_hosts[" + i + "]", h);
            try {
                HostPattern.parse(h);
            } catch (PaddockException e) {
                throw Check.invalid("network.allowed_hosts[" + i + "]", "is not a valid entry: " + e.getMessage());
            }
        }
        return new NetworkPolicy(mode, hosts, packageManagers);
    }

    private static Duration seconds(String field, Long value) {
        if (value == null) return null;
        return Duration.ofSeconds(Check.range(field, value, 1, MAX_SECONDS));
    }
}
