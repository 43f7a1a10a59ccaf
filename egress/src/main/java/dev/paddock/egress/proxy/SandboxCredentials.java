package dev.paddock.egress.proxy;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;

import dev.paddock.core.egress.HostPattern;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.egress.vault.CredentialRule;
import dev.paddock.egress.vault.Placement;
import dev.paddock.egress.vault.Vault;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The credentials of one sandbox: each rule gets an opaque placeholder ({@code paddock-secret-<32 hex>}) that is
 * all the sandbox ever sees. The proxy swaps placeholders for values, or sets the rule's header, only on requests
 * inside an intercepted TLS session whose CONNECT target is one of the rule's hosts, and only in header values
 * (never in the URL or the body). Plain HTTP never carries a value: the proxy refuses plain HTTP to any host a
 * rule names, and a placeholder travelling anywhere else is left untouched and reported.
 */
public final class SandboxCredentials {
    public static final SandboxCredentials NONE = new SandboxCredentials(null, null, List.of());
    public static final String PLACEHOLDER_PREFIX = "paddock-secret-";

    /** A rule and the placeholder that stands for its secret inside the sandbox. */
    public record Binding(CredentialRule rule, String placeholder, List<HostPattern> patterns) {
        boolean matches(String host, int port) {
            for (HostPattern p : patterns) {
                if (p.matchesHost(host) && (p.port() == HostPattern.ANY_WEB_PORT || p.port() == port)) return true;
            }
            return false;
        }
    }

    /** What happened to one request's headers. */
    record Injection(List<String> injected, List<String> leaked) {}

    /** The secret could not be injected; the request is refused rather than sent without or with a broken credential. */
    static final class UnavailableException extends Exception {
        final String code;

        UnavailableException(String code, String message) {
            super(message, null, false, false);
            this.code = code;
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Vault vault;
    private final String tenantId;
    private final List<Binding> bindings;

    private SandboxCredentials(Vault vault, String tenantId, List<Binding> bindings) {
        this.vault = vault;
        this.tenantId = tenantId;
        this.bindings = List.copyOf(bindings);
    }

    /** Binds {@code rules} for one sandbox with random placeholders; each secret must exist in the tenant's vault. */
    public static SandboxCredentials bind(Vault vault, String tenantId, List<CredentialRule> rules) {
        List<Binding> out = new ArrayList<>();
        for (CredentialRule rule : rules) {
            vault.get(tenantId, rule.secretId()); // fails with not_found now rather than at the first request
            byte[] token = new byte[16];
            RANDOM.nextBytes(token);
            out.add(new Binding(rule, PLACEHOLDER_PREFIX + HexFormat.of().formatHex(token), rule.patterns()));
        }
        return new SandboxCredentials(vault, tenantId, out);
    }

    /**
     * Binds {@code rules} with placeholders derived from the vault key, the sandbox and the rule, so binding the
     * same rules again after a host restart yields the placeholders the sandbox's environment already holds.
     * With {@code verify}, each secret must exist now; without (a re-bind), a secret deleted meanwhile only makes
     * requests that need it fail with {@code credential_missing}.
     */
    public static SandboxCredentials bindStable(Vault vault, String tenantId, String sandboxId, List<CredentialRule> rules, boolean verify) {
        List<Binding> out = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            CredentialRule rule = rules.get(i);
            if (verify) vault.get(tenantId, rule.secretId());
            byte[] token = vault.placeholderToken("placeholder|" + tenantId + "|" + sandboxId + "|" + i + "|" + rule.secretId() + "|" + rule.envVar());
            out.add(new Binding(rule, PLACEHOLDER_PREFIX + HexFormat.of().formatHex(token), rule.patterns()));
        }
        return new SandboxCredentials(vault, tenantId, out);
    }

    public List<Binding> bindings() { return bindings; }

    public boolean isEmpty() { return bindings.isEmpty(); }

    /** Environment variables to set inside the sandbox: {@code envVar -> placeholder}. Values are not secret. */
    public Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (Binding b : bindings) if (b.rule().envVar() != null) env.put(b.rule().envVar(), b.placeholder());
        return env;
    }

    /** True when some rule covers this destination, so HTTPS to it must be intercepted. */
    public boolean covers(String host, int port) {
        for (Binding b : bindings) if (b.matches(host, port)) return true;
        return false;
    }

    /**
     * True when some rule names {@code host} (canonical), on any port. Plain HTTP to such a host is refused: a
     * client that sends its credential there would otherwise put it, or its placeholder, on the wire unencrypted.
     */
    public boolean namesHost(String host) {
        for (Binding b : bindings) {
            for (HostPattern p : b.patterns()) if (p.matchesHost(host)) return true;
        }
        return false;
    }

    /**
     * For a plain-HTTP request (never to a rule's host): nothing is injected; every placeholder found in the
     * request target or a header value is reported as leaked, since no rule applies to cleartext.
     */
    Injection inspectPlain(String requestTarget, Headers headers) {
        List<String> leaked = new ArrayList<>();
        for (Binding b : bindings) {
            String secretId = b.rule().secretId();
            if ((headers.anyValueContains(b.placeholder()) || requestTarget.contains(b.placeholder())) && !leaked.contains(secretId)) {
                leaked.add(secretId);
            }
        }
        return new Injection(List.of(), leaked);
    }

    /**
     * Applies every rule to a request inside an intercepted TLS session whose upstream is {@code host:port} (the
     * CONNECT target, verified by the upstream's certificate). Only header values change; never call this for a
     * request that leaves in cleartext.
     */
    Injection applyOverTls(String host, int port, String requestTarget, Headers headers) throws UnavailableException {
        List<String> injected = new ArrayList<>();
        List<String> leaked = new ArrayList<>();
        for (Binding b : bindings) {
            String secretId = b.rule().secretId();
            if (b.matches(host, port)) {
                boolean used = false;
                if (headers.anyValueContains(b.placeholder())) {
                    String value = headerValue(secretId);
                    headers.replaceValues(v -> v.replace(b.placeholder(), value));
                    used = true;
                }
                if (b.rule().placement() instanceof Placement.Header h) {
                    headers.set(h.name(), h.template().replace(Placement.SECRET_MARKER, headerValue(secretId)));
                    used = true;
                }
                if (used && !injected.contains(secretId)) injected.add(secretId);
            } else if (headers.anyValueContains(b.placeholder()) || requestTarget.contains(b.placeholder())) {
                if (!leaked.contains(secretId)) leaked.add(secretId);
            }
        }
        return new Injection(injected, leaked);
    }

    private String headerValue(String secretId) throws UnavailableException {
        SecretValue value;
        try {
            value = vault.reveal(tenantId, secretId);
        } catch (PaddockException e) {
            String code = e.type() == ErrorType.NOT_FOUND ? "credential_missing" : "credential_unavailable";
            throw new UnavailableException(code, "secret " + secretId + " is not available");
        }
        if (!value.isHeaderSafe()) throw new UnavailableException("credential_not_header_safe", "secret " + secretId + " contains characters not allowed in an HTTP header");
        return value.reveal();
    }

    @Override
    public String toString() { return "SandboxCredentials[" + bindings.size() + " rules]"; }
}
