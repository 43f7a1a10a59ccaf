package dev.paddock.server.wire;

import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** Body of {@code POST /v1/sandboxes}; every field optional. Checked by {@link SandboxBodies}. */
public record CreateSandboxBody(
        String driver,
        String image,
        Boolean writableRootfs,
        LimitsBody limits,
        Map<String, String> env,
        NetworkBody network,
        Long timeoutSeconds,
        IdleBody idle,
        List<CredentialBody> credentials,
        String template,
        BrowserBody browser,
        String fromCheckpoint,
        PlacementBody placement,
        String fromSnapshot) {

    /** Where a cluster of servers places the sandbox: on a node whose labels include all of {@code nodeLabels}. */
    public record PlacementBody(Map<String, String> nodeLabels) {}

    /** {@code template: "browser"} or a {@code browser} object makes a browser sandbox. */
    public record BrowserBody(Boolean allowEvaluate) {}

    /** {@code memory} is bytes or a size string such as {@code "512m"}, hence a raw node. */
    public record LimitsBody(JsonNode memory, Integer pids, Double cpus, JsonNode disk) {}

    public record NetworkBody(String type, List<String> allowedHosts, Boolean allowPackageManagers) {}

    /** A vault secret bound to hosts; {@code env} receives the placeholder, {@code header}/{@code template} place the value. */
    public record CredentialBody(String secretId, List<String> hosts, String header, String template, String env) {}

    public record IdleBody(Long suspendAfterSeconds, Long terminateAfterSeconds) {}
}
