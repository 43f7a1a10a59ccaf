package dev.paddock.core.egress;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One audit record per outbound connection (CONNECT tunnel) or request (plain HTTP, or each request inside an
 * intercepted TLS tunnel). It never holds a secret: the URL keeps scheme, host, port and path but drops any
 * userinfo and the query string, and credentials are named by secret id only.
 *
 * @param sandboxId        the sandbox whose listener the connection arrived on
 * @param time             when the connection or request started
 * @param host             destination host as requested (canonical form), empty when the request was unreadable
 * @param resolvedAddress  the checked address connected to (or the blocked one), null when none was reached
 * @param port             destination port, 0 when unknown
 * @param method           HTTP method ({@code CONNECT} for tunnels), null when unknown
 * @param url              scrubbed URL where visible (plain HTTP and intercepted HTTPS), else null
 * @param mode             {@code http}, {@code connect_tunnel}, {@code tls_intercept} or {@code unknown}
 * @param decision         what happened
 * @param rule             the policy rule that matched, or the stable reason code of a denial or error
 * @param status           HTTP status sent to the client (200 for an established tunnel), 0 when none
 * @param bytesUp          bytes sent to the destination
 * @param bytesDown        bytes received from the destination
 * @param duration         from start until the connection or request finished
 * @param injectedSecrets  ids of the vault secrets injected into this request
 * @param leakedPlaceholderSecrets ids of secrets whose placeholder was sent to a host outside their rule (not replaced)
 */
public record EgressAuditRecord(
        String sandboxId,
        Instant time,
        String host,
        String resolvedAddress,
        int port,
        String method,
        String url,
        String mode,
        EgressDecision decision,
        String rule,
        int status,
        long bytesUp,
        long bytesDown,
        Duration duration,
        List<String> injectedSecrets,
        List<String> leakedPlaceholderSecrets) {

    public EgressAuditRecord {
        injectedSecrets = List.copyOf(injectedSecrets);
        leakedPlaceholderSecrets = List.copyOf(leakedPlaceholderSecrets);
    }
}
