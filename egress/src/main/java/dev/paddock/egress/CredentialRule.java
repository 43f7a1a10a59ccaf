package dev.paddock.egress;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Binds a vault secret to destination hosts and a {@link Placement}. Hosts use the {@code allowed_hosts} syntax
 * ({@code api.example.com}, {@code *.example.com}, optional {@code :port}); here an entry without a port matches
 * any port. The value is only ever sent over TLS that the proxy intercepted for a CONNECT to a matching host; plain
 * HTTP to any host a rule names is refused. {@code envVar}, when set, is the sandbox environment variable that
 * receives the placeholder. The rule does not open the network: the destination must also be allowed by the
 * sandbox's policy.
 */
public record CredentialRule(String secretId, List<String> hosts, Placement placement, String envVar) {
    private static final Pattern ENV = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    public CredentialRule {
        if (!Vault.isSecretId(secretId)) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "secret_id must look like sec_0123456789abcdefghjkmnpqrs, got '" + Text.clip(secretId, 40) + "'");
        }
        if (hosts == null || hosts.isEmpty()) throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "a credential rule needs at least one host");
        hosts = List.copyOf(hosts);
        hosts.forEach(HostPattern::parse);
        if (placement == null) throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "a credential rule needs a placement");
        if (envVar != null && !ENV.matcher(envVar).matches()) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "env_var '" + Text.clip(envVar, 60) + "' is not a valid environment variable name");
        }
    }

    List<HostPattern> patterns() { return hosts.stream().map(HostPattern::parse).toList(); }
}
