package dev.paddock.core.spi;

import java.util.List;

/** Opens and closes a sandbox's egress proxy listener. Implemented by the egress module, used by the host. */
public interface EgressPort {
    /** Opens (or re-opens after a host restart) the listener for a sandbox. Idempotent. */
    EgressAttachment open(String tenantId, String sandboxId, NetworkPolicy policy, List<CredentialBinding> credentials);

    /**
     * Replaces the policy of an open listener (a pooled sandbox claimed by a tenant): connections from now on
     * meet {@code policy}, live ones are closed. The socket stays where the sandbox has it bound.
     */
    EgressAttachment reopen(String tenantId, String sandboxId, NetworkPolicy policy);

    /** Closes the listener; the audit records stay. */
    void close(String sandboxId);
}
