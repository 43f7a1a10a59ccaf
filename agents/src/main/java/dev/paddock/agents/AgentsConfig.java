package dev.paddock.agents;

import java.time.Duration;

/**
 * Settings of the Managed Agents layer. {@code modelBaseUrl}/{@code modelApiKey} point the agent loop at a Messages
 * API (null base URL: no model, so sessions that need one cannot be created). {@code allowSandboxFree} permits
 * environments of type {@code none}, whose tools run on the host through {@code sandboxFreeDriver} without
 * isolation. {@code toolResultTimeout} bounds how long the loop waits for a self-hosted worker's tool result.
 * {@code packageMirrors} are where environment packages come from besides the public registries. A model request
 * that failed for a reason that may pass (429, 529, 5xx, no connection) is retried with exponential backoff from
 * {@code modelRetryBackoff} (or the wait the model's server asks for in {@code retry-after}) for at most
 * {@code modelRetryBudget} per request. {@code modelPrices} are the list prices session budgets are counted in.
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
        PackageMirrors packageMirrors,
        Duration modelRetryBudget,
        Duration modelRetryBackoff,
        ModelPrices modelPrices) {

    public static final long MAX_BLOCK_MS = 999;

    public AgentsConfig {
        if (sandboxFreeDriver == null || sandboxFreeDriver.isBlank()) sandboxFreeDriver = "subprocess";
        if (maxTurns <= 0) maxTurns = 50;
        if (maxTokens <= 0) maxTokens = 8192;
        if (toolResultTimeout == null) toolResultTimeout = Duration.ofMinutes(10);
        if (defaultLeaseTtl == null) defaultLeaseTtl = Duration.ofSeconds(60);
        if (maxLeaseTtl == null) maxLeaseTtl = Duration.ofMinutes(10);
        if (packageMirrors == null) packageMirrors = PackageMirrors.NONE;
        if (modelRetryBudget == null) modelRetryBudget = Duration.ofMinutes(2);
        if (modelRetryBackoff == null) modelRetryBackoff = Duration.ofSeconds(1);
        if (modelPrices == null) modelPrices = ModelPrices.BUILT_IN_ONLY;
    }

    /** The settings with the default model retry budget. */
    public AgentsConfig(String modelBaseUrl, String modelApiKey, boolean allowSandboxFree, String sandboxFreeDriver, int maxTurns,
                        long maxTokens, Duration toolResultTimeout, Duration defaultLeaseTtl, Duration maxLeaseTtl, PackageMirrors packageMirrors) {
        this(modelBaseUrl, modelApiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl, maxLeaseTtl,
                packageMirrors, null, null, null);
    }

    public static AgentsConfig defaults() {
        return new AgentsConfig(null, null, false, null, 0, 0, null, null, null, null);
    }

    public AgentsConfig withModel(String baseUrl, String apiKey) {
        return new AgentsConfig(baseUrl, apiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl, maxLeaseTtl, packageMirrors,
                modelRetryBudget, modelRetryBackoff, modelPrices);
    }

    public AgentsConfig withSandboxFree(boolean allow, String driver) {
        return new AgentsConfig(modelBaseUrl, modelApiKey, allow, driver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl, maxLeaseTtl, packageMirrors,
                modelRetryBudget, modelRetryBackoff, modelPrices);
    }

    public AgentsConfig withLeaseTtl(Duration ttl) {
        return new AgentsConfig(modelBaseUrl, modelApiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, ttl, maxLeaseTtl, packageMirrors,
                modelRetryBudget, modelRetryBackoff, modelPrices);
    }

    public AgentsConfig withPackageMirrors(PackageMirrors mirrors) {
        return new AgentsConfig(modelBaseUrl, modelApiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl, maxLeaseTtl, mirrors,
                modelRetryBudget, modelRetryBackoff, modelPrices);
    }

    public AgentsConfig withModelRetry(Duration budget, Duration firstBackoff) {
        return new AgentsConfig(modelBaseUrl, modelApiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl,
                maxLeaseTtl, packageMirrors, budget, firstBackoff, modelPrices);
    }

    public AgentsConfig withModelPrices(ModelPrices prices) {
        return new AgentsConfig(modelBaseUrl, modelApiKey, allowSandboxFree, sandboxFreeDriver, maxTurns, maxTokens, toolResultTimeout, defaultLeaseTtl,
                maxLeaseTtl, packageMirrors, modelRetryBudget, modelRetryBackoff, prices);
    }

    public boolean hasModel() {
        return modelBaseUrl != null && !modelBaseUrl.isBlank();
    }
}
