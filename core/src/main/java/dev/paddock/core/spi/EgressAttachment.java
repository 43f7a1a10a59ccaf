package dev.paddock.core.spi;

import java.util.Map;

/**
 * A sandbox's only way out: the host directory holding the egress proxy's unix socket (bound into the sandbox),
 * the CA certificate the sandbox must trust for intercepted hosts, and environment variables to add (credential
 * placeholders). Derivable again from the sandbox id after a restart, so re-opening it is idempotent.
 */
public record EgressAttachment(String socketDir, String socketName, String caCertificatePem, Map<String, String> env) {
    public EgressAttachment {
        env = env == null ? Map.of() : Map.copyOf(env);
    }
}
