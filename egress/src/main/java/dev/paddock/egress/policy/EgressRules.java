package dev.paddock.egress.policy;

import dev.paddock.core.egress.HostName;
import dev.paddock.core.egress.HostPattern;
import dev.paddock.core.spi.NetworkPolicy;

import java.util.List;

/**
 * Decides, from a sandbox's {@link NetworkPolicy}, whether a destination (host, port) may be reached. This is
 * the name-level half of the policy; {@link AddressGuard} then refuses private, loopback and metadata addresses
 * in every mode. Entries are validated when the rules are built, so a bad policy fails before a sandbox starts.
 */
public final class EgressRules {
    private final NetworkPolicy.Mode mode;
    private final List<HostPattern> allowed;
    private final boolean packageManagers;

    public EgressRules(NetworkPolicy policy) {
        NetworkPolicy p = policy == null ? NetworkPolicy.NONE : policy;
        this.mode = p.mode();
        this.allowed = p.allowedHosts().stream().map(HostPattern::parse).toList();
        this.packageManagers = p.allowPackageManagers();
    }

    /** Validates a policy without keeping it; throws {@code invalid_allowed_host} naming the first bad entry. */
    public static void validate(NetworkPolicy policy) {
        new EgressRules(policy);
    }

    /**
     * The decision for {@code host} (any case, optional trailing dot, IPv6 with or without brackets) and
     * {@code port}. A host that is not a valid name or literal is denied with rule {@code invalid_host}.
     */
    public RuleDecision decide(String host, int port) {
        var canonical = HostName.normalize(host);
        if (canonical.isEmpty() || port < 1 || port > 65535) return RuleDecision.deny("invalid_host");
        return decideCanonical(canonical.get(), port);
    }

    /** The decision for a host already in {@link HostName}'s canonical form. */
    public RuleDecision decideCanonical(String host, int port) {
        switch (mode) {
            case NONE: return RuleDecision.deny("network_mode_none");
            case UNRESTRICTED: return RuleDecision.allow("unrestricted");
            default: break;
        }
        for (HostPattern pattern : allowed) {
            if (pattern.matches(host, port)) return RuleDecision.allow("allowed_hosts:" + pattern);
        }
        if (packageManagers) {
            for (HostPattern pattern : PackageManagerHosts.PATTERNS) {
                if (pattern.matches(host, port)) return RuleDecision.allow("package_managers:" + pattern);
            }
        }
        return RuleDecision.deny("host_not_allowed");
    }

    public NetworkPolicy.Mode mode() { return mode; }
}
