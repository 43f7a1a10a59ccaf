package dev.paddock.driver.kubernetes;

import java.time.Duration;

/**
 * Where and how sandboxes run in a cluster. {@code installation} goes on every object the driver makes, so several
 * Paddock installations share a namespace without touching each other's sandboxes. {@code runtimeClass} (gVisor,
 * Kata) and {@code storageClass} are null for the cluster's defaults. {@code image} is the container image of
 * sandboxes whose request names none. {@code uid} runs every sandbox process and owns the workspace. {@code egress} is
 * null where sandbox pods have no way to Paddock's egress proxy: then only network mode none exists. {@code warmPool}
 * is null without a warm pool (which needs agent-sandbox's extensions).
 */
public record KubernetesConfig(
        String namespace,
        String installation,
        String runtimeClass,
        String storageClass,
        String image,
        String workspaceSize,
        long uid,
        Duration startTimeout,
        PodEgress egress,
        WarmPoolShape warmPool) {

    public static final String DEFAULT_IMAGE = "debian:stable-slim";
    public static final String DEFAULT_WORKSPACE_SIZE = "1Gi";
    public static final long DEFAULT_UID = 65532;
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofMinutes(2);

    public KubernetesConfig {
        if (namespace == null || namespace.isBlank()) throw new IllegalArgumentException("kubernetes_namespace is required");
        if (installation == null || !ObjectNames.isLabelValue(installation)) {
            throw new IllegalArgumentException("the installation label must be 1-63 letters, digits, '-', '_' or '.', got " + installation);
        }
        image = image == null || image.isBlank() ? DEFAULT_IMAGE : image;
        workspaceSize = workspaceSize == null || workspaceSize.isBlank() ? DEFAULT_WORKSPACE_SIZE : workspaceSize;
        startTimeout = startTimeout == null ? DEFAULT_START_TIMEOUT : startTimeout;
        runtimeClass = blankToNull(runtimeClass);
        storageClass = blankToNull(storageClass);
    }

    public KubernetesConfig(String namespace, String installation, String runtimeClass, String storageClass, String image,
                            String workspaceSize, long uid, Duration startTimeout) {
        this(namespace, installation, runtimeClass, storageClass, image, workspaceSize, uid, startTimeout, null, null);
    }

    public KubernetesConfig(String namespace, String installation, String runtimeClass, String storageClass, String image,
                            String workspaceSize, long uid, Duration startTimeout, PodEgress egress) {
        this(namespace, installation, runtimeClass, storageClass, image, workspaceSize, uid, startTimeout, egress, null);
    }

    public static KubernetesConfig of(String namespace, String installation) {
        return new KubernetesConfig(namespace, installation, null, null, null, null, DEFAULT_UID, null);
    }

    public KubernetesConfig withRuntimeClass(String name) {
        return new KubernetesConfig(namespace, installation, name, storageClass, image, workspaceSize, uid, startTimeout, egress, warmPool);
    }

    public KubernetesConfig withEgress(PodEgress podEgress) {
        return new KubernetesConfig(namespace, installation, runtimeClass, storageClass, image, workspaceSize, uid, startTimeout, podEgress, warmPool);
    }

    public KubernetesConfig withWarmPool(WarmPoolShape pool) {
        return new KubernetesConfig(namespace, installation, runtimeClass, storageClass, image, workspaceSize, uid, startTimeout, egress, pool);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
