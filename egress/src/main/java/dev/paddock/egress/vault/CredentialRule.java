package dev.paddock.egress.vault;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.egress.HostPattern;
import dev.paddock.core.spi.CredentialBinding;

import java.util.List;

/**
 * Binds a vault secret to destination hosts and a {@link Placement}. Hosts use the {@code allowed_hosts} syntax
 * ({@code api.example.com}, {@code *.example.com}, optional {@code :port}); here an entry without a port matches
 * any port. The value is only ever sent over TLS that the proxy intercepted for a CONNECT to a matching host; plain
 * HTTP to any host a rule names is refused. {@code envVar}, when set, is the sandbox environment variable that
 * receives the placeholder. The rule does not open the network: the destination must also be allowed by the
 * sandbox's policy.
 */
public record CredentialRule(String secretId, List<String> hosts, Placement placement, String envVar) {
    public CredentialRule {
        CredentialBinding.checkSecretAndHosts(secretId, hosts);
        hosts = List.copyOf(hosts);
        if (placement == null) throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "a credential rule needs a placement");
        CredentialBinding.checkEnvVar(envVar);
    }

    /** The rule a checked binding asks for. */
    public static CredentialRule of(CredentialBinding binding) {
        Placement placement = binding.validate().setsHeader()
                ? Placement.header(binding.header(), binding.headerTemplate()) : Placement.replacePlaceholder();
        return new CredentialRule(binding.secretId(), binding.hosts(), placement, binding.envVar());
    }

    public List<HostPattern> patterns() { return hosts.stream().map(HostPattern::parse).toList(); }
}
