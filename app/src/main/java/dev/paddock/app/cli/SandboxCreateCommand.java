package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code paddock sandbox create}: prints the new sandbox's id. */
@Command(name = "create", description = "Create a sandbox and print its id.")
public final class SandboxCreateCommand extends ClientCommand {
    @Option(names = "--driver", description = "driver to run it on (default: the server's default)")
    String driver;

    @Option(names = "--image", description = "root filesystem image (default: the host's system directories, read-only)")
    String image;

    @Option(names = "--writable-rootfs", description = "let the sandbox write to its root filesystem")
    boolean writableRootfs;

    @Option(names = "--memory", paramLabel = "SIZE", converter = Units.SizeConverter.class, description = "memory limit, e.g. 512m, 1g")
    Long memory;

    @Option(names = "--disk", paramLabel = "SIZE", converter = Units.SizeConverter.class,
            description = "disk limit of /workspace and outputs together, e.g. 2g (default: the server's default_disk)")
    Long disk;

    @Option(names = "--pids", paramLabel = "N", description = "maximum number of processes")
    Integer pids;

    @Option(names = "--cpus", paramLabel = "N", description = "CPU share in cores, e.g. 0.5, 2")
    Double cpus;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Units.DurationConverter.class, description = "lifetime, e.g. 30m, 2h")
    Duration timeout;

    @Option(names = "--idle-suspend", paramLabel = "DURATION", converter = Units.DurationConverter.class, description = "suspend after this long idle")
    Duration idleSuspend;

    @Option(names = "--idle-terminate", paramLabel = "DURATION", converter = Units.DurationConverter.class, description = "terminate after this long idle")
    Duration idleTerminate;

    @Option(names = "--env", paramLabel = "K=V", description = "environment variable inside the sandbox (repeatable)")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(names = "--network", paramLabel = "MODE", description = "none (default: loopback only), limited (--allow-host) or unrestricted")
    String network;

    @Option(names = "--allow-host", paramLabel = "HOST", description = "with --network limited: a host the sandbox may reach, e.g. api.example.com, *.example.com, host:8443 (repeatable)")
    List<String> allowHosts = new ArrayList<>();

    @Option(names = "--allow-package-managers", description = "with --network limited: also allow the Debian, PyPI, npm and Maven hosts")
    boolean allowPackageManagers;

    @Option(names = "--credential", paramLabel = "SECRET_ID:HOSTS:ENV[:HEADER[:TEMPLATE]]",
            description = "let the egress proxy place a vault secret on HTTPS requests to HOSTS (comma-separated; plain http to them is "
                    + "refused); the sandbox sees only a "
                    + "placeholder in ENV. With HEADER the proxy sets that header (TEMPLATE, default {secret}, e.g. 'Bearer {secret}') (repeatable)")
    List<String> credentials = new ArrayList<>();

    @Option(names = "--browser", description = "a browser sandbox (Chromium + playwright-core inside; see `paddock browser`)")
    boolean browser;

    @Option(names = "--browser-evaluate", description = "with --browser: allow the step-mode \"evaluate\" action")
    boolean browserEvaluate;

    @Override
    public Integer call() {
        if (pids != null && pids <= 0) throw CliException.usage("--pids must be a positive number, got " + pids);
        if (cpus != null && !(cpus > 0)) throw CliException.usage("--cpus must be greater than 0, got " + cpus);
        ObjectNode body = Json.object();
        if (driver != null) body.put("driver", driver);
        if (image != null) body.put("image", image);
        if (writableRootfs) body.put("writable_rootfs", true);
        if (memory != null || pids != null || cpus != null || disk != null) {
            ObjectNode limits = body.putObject("limits");
            if (memory != null) limits.put("memory", memory);
            if (pids != null) limits.put("pids", pids);
            if (cpus != null) limits.put("cpus", cpus);
            if (disk != null) limits.put("disk", disk);
        }
        if (!env.isEmpty()) {
            ObjectNode e = body.putObject("env");
            env.forEach(e::put);
        }
        NetworkOptions.apply(body, network, allowHosts, allowPackageManagers, credentials);
        if (browser || browserEvaluate) body.put("template", "browser").putObject("browser").put("allow_evaluate", browserEvaluate);
        if (timeout != null) body.put("timeout_seconds", timeout.toSeconds());
        if (idleSuspend != null || idleTerminate != null) {
            ObjectNode idle = body.putObject("idle");
            if (idleSuspend != null) idle.put("suspend_after_seconds", idleSuspend.toSeconds());
            if (idleTerminate != null) idle.put("terminate_after_seconds", idleTerminate.toSeconds());
        }
        byte[] raw = client().call("POST", "/v1/sandboxes", Map.of(), body);
        if (json()) {
            printJson(raw);
        } else {
            ctx.out().println(Fields.requiredString(SandboxTable.checked(Fields.object(raw)), "id"));
        }
        return 0;
    }
}
