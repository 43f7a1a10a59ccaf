package dev.paddock.host;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.CredentialBinding;
import dev.paddock.core.spi.EgressPort;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxSpec;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each sandbox's lease on the egress proxy: a sandbox whose network policy lets it out holds one listener from the
 * host's {@link EgressPort} from its start (or re-attach) until it ends. Without a port, only network mode
 * {@code none} exists: anything else is refused, never let out unfenced.
 */
final class EgressLeases {
    private static final Logger log = LoggerFactory.getLogger(EgressLeases.class);
    private final EgressPort egress;

    /** {@code egress} null: this host runs no egress proxy. */
    EgressLeases(EgressPort egress) {
        this.egress = egress;
    }

    /** Fails closed: a sandbox that may reach the network needs the egress proxy; there is no unfenced way out. */
    void require(NetworkPolicy network, List<CredentialBinding> credentials) {
        if (network.mode() != NetworkPolicy.Mode.NONE && egress == null) {
            throw new PaddockException(ErrorCode.EGRESS_UNAVAILABLE, "network mode '"
                    + network.mode().name().toLowerCase() + "' needs the egress proxy, which this server does not run; use network type none");
        }
        if (!credentials.isEmpty() && network.mode() == NetworkPolicy.Mode.NONE) {
            throw new PaddockException(ErrorCode.CREDENTIALS_NEED_NETWORK, "credentials are placed by the egress proxy: give the sandbox a network policy (limited or unrestricted) that reaches their hosts");
        }
    }

    /** Opens the sandbox's listener when its policy lets it out (again after a restart: it is idempotent). */
    SandboxSpec open(SandboxSpec spec) {
        if (spec.network().mode() == NetworkPolicy.Mode.NONE || egress == null) return spec;
        return spec.withEgress(egress.open(spec.tenantId(), spec.sandboxId(), spec.network(), spec.credentials()));
    }

    /** A claimed pooled sandbox waited with the pool's network policy: from now on it has the request's. */
    void claim(WarmPool.Entry e, String tenantId, NetworkPolicy wanted) {
        if (e.spec().network().mode() == NetworkPolicy.Mode.NONE) return;
        egress.reopen(tenantId, e.spec().sandboxId(), wanted);
    }

    /**
     * Gives a running sandbox's listener a new policy; only a sandbox that has one (it started with a network, and
     * this host opened it) can change, since nothing else inside it could reach the proxy.
     */
    void change(String sandboxId, NetworkPolicy policy) {
        if (egress == null || !egress.isOpen(sandboxId)) {
            throw new PaddockException(ErrorCode.NETWORK_NOT_CHANGEABLE, "sandbox " + sandboxId
                    + " has no egress listener: it was started with network none (or its listener is gone), so nothing inside"
                    + " it could reach the proxy; create a new sandbox with network limited instead");
        }
        egress.changePolicy(sandboxId, policy);
    }

    void close(String sandboxId) {
        if (egress == null) return;
        try {
            egress.close(sandboxId);
        } catch (RuntimeException e) {
            log.warn("closing the egress listener of {} failed: {}", sandboxId, e.getMessage());
        }
    }
}
