package dev.paddock.egress.policy;

/**
 * The policy's answer for one destination. {@code rule} names what matched (e.g.
 * {@code allowed_hosts:*.example.com}, {@code package_managers:pypi.org}, {@code unrestricted}) or, when denied,
 * why ({@code network_mode_none}, {@code host_not_allowed}); it goes into the audit record as is.
 */
public record RuleDecision(boolean allowed, String rule) {
    static RuleDecision allow(String rule) { return new RuleDecision(true, rule); }

    static RuleDecision deny(String reason) { return new RuleDecision(false, reason); }
}
