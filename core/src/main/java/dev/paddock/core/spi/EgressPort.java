package dev.paddock.core.spi;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
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

    /**
     * Changes the rules of a sandbox's open listener while it runs: the socket and the credentials (their placeholders
     * are in the sandbox's environment, fixed at its start) stay; connections from now on meet {@code policy}, and
     * connections opened under the old rules are closed, so nothing the new rules refuse stays open. The change is
     * written to the egress audit. Throws {@code network_not_changeable} when the sandbox has no open listener.
     */
    default void changePolicy(String sandboxId, NetworkPolicy policy) {
        throw new PaddockException(ErrorCode.NETWORK_NOT_CHANGEABLE,
                "this egress port cannot change the policy of a running sandbox");
    }

    /** Whether the sandbox has an open listener (so its policy can be changed). */
    default boolean isOpen(String sandboxId) {
        return false;
    }

    /** Closes the listener; the audit records stay. */
    void close(String sandboxId);
}
