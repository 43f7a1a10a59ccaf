package dev.paddock.agents;

import java.time.Duration;

/**
 * Settings of the Managed Agents layer. {@code modelBaseUrl}/{@code modelApiKey} point the agent loop at a Messages
 * API (null base URL: no model, so sessions that need one cannot be created). {@code allowSandboxFree} permits
 * environments of type {@code none}, whose tools run on the host through {@code sandboxFreeDriver} without
 * isolation. {@code toolResultTimeout} bounds how long the loop waits for a self-hosted worker's tool result.
 * {@code packageMirrors} are where environment packages come from besides the public registries.
 */
public record AgentsConfig(
        String modelBaseUrl,
        String modelApiKey,
        boolean allowSandboxFree,
        String sandboxFreeDriver,
        int maxTurns,
        long maxTokens,
        Duration toolResultTimeout,
        Duration defaultLeaseTtl,
        Duration maxLeaseTtl,
        PackageMirrors packageMirrors) {

    public static final long MAX_BLOCK_MS = 999;

    public AgentsConfig {
        if (sandboxFreeDriver == null || sandboxFreeDriver.isBlank()) sandboxFreeDriver = "subprocess";
        if (maxTurns <= 0) maxTurns = 50;
        if (maxTokens <= 0) maxTokens = 8192;
        if (toolResultTimeout == null) toolResultTimeout = Duration.ofMinutes(10);
        if (defaultLeaseTtl == null) defaultLeaseTtl = Duration.ofSeconds(60);
        if (maxLeaseTtl == null) maxLeaseTtl = Duration.ofMinutes(10);
        if (packageMirrors == null) packageMirrors = PackageMirrors.NONE;
    }

    public static AgentsConfig defaults() {
        return new AgentsConfig(null, null, false, null, 0, 0, null, null, null, null);
    }

    public AgentsConfig withModel(String baseUrl, String apiKey) {
        return new AgentsConfig(baseUrl, apiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl, maxLeaseTtl, packageMirrors);
    }

    public AgentsConfig withSandboxFree(boolean allow, String driver) {
        return new AgentsConfig(modelBaseUrl, modelApiKey, allow, driver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl, maxLeaseTtl, packageMirrors);
    }

    public AgentsConfig withLeaseTtl(Duration ttl) {
        return new AgentsConfig(modelBaseUrl, modelApiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, ttl, maxLeaseTtl, packageMirrors);
    }

    public AgentsConfig withPackageMirrors(PackageMirrors mirrors) {
        return new AgentsConfig(modelBaseUrl, modelApiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl, maxLeaseTtl, mirrors);
    }

    public boolean hasModel() {
        return modelBaseUrl != null && !modelBaseUrl.isBlank();
    }
}
