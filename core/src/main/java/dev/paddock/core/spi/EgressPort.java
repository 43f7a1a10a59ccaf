package dev.paddock.core.spi;

import java.util.List;

/** Opens and closes a sandbox's egress proxy listener. Implemented by the egress module, used by the host. */
public interface EgressPort {
    /** Opens (or re-opens after a host restart) the listener for a sandbox. Idempotent. */
    EgressAttachment open(String tenantId, String sandboxId, NetworkPolicy policy, List<CredentialBinding> credentials);

    /** Closes the listener; the audit records stay. */
    void close(String sandboxId);
}
