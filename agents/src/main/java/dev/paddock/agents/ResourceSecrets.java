package dev.paddock.agents;

import dev.paddock.core.egress.SecretValue;

/**
 * Where repository tokens are kept: the server's secret vault (app wires the egress module's vault). Only the host's
 * git clone reads a token back; it never enters a sandbox, a row's body or an answer.
 */
public interface ResourceSecrets {
    /** Seals the token under a new secret of the tenant; answers its id. */
    String seal(String tenantId, String name, SecretValue token);

    /** Replaces a sealed token. */
    void replace(String tenantId, String secretId, SecretValue token);

    SecretValue reveal(String tenantId, String secretId);

    void delete(String tenantId, String secretId);
}
