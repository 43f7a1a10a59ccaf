package dev.paddock.core.spi;

import java.util.List;

/**
 * Binds a vault secret to destination hosts. The sandbox sees only an opaque placeholder in {@code envVar}; the
 * egress proxy puts the real value into header {@code header} (rendered from {@code template}, where
 * {@code {secret}} stands for the value) or replaces the placeholder — only on requests to {@code hosts}.
 */
public record CredentialBinding(String secretId, List<String> hosts, String header, String template, String envVar) {
    public CredentialBinding {
        if (secretId == null || secretId.isBlank()) throw new IllegalArgumentException("secretId is required");
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
        if (hosts.isEmpty()) throw new IllegalArgumentException("a credential needs at least one destination host");
    }
}
