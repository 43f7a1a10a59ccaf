package dev.paddock.core.spi;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.egress.HeaderNames;
import dev.paddock.core.egress.HostPattern;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Binds a vault secret to destination hosts. The sandbox sees only an opaque placeholder in {@code envVar}; the
 * egress proxy puts the real value into header {@code header} (rendered from {@code template}, where
 * {@code {secret}} stands for the value) or replaces the placeholder — only on requests to {@code hosts}.
 * {@link #validate()} holds the rules, for the API that takes a binding and for the proxy that serves it.
 */
public record CredentialBinding(String secretId, List<String> hosts, String header, String template, String envVar) {
    /** Marker in a header template replaced by the secret value. */
    public static final String SECRET_MARKER = "{secret}";
    private static final Pattern ENV = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    public CredentialBinding {
        if (secretId == null || secretId.isBlank()) throw new IllegalArgumentException("secretId is required");
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
        if (hosts.isEmpty()) throw new IllegalArgumentException("a credential needs at least one destination host");
    }

    /**
     * Checks the binding as the egress proxy will read it, so a bad one fails before any sandbox runs with it:
     * {@code invalid_credential_rule}, or {@code invalid_allowed_host} naming the bad host.
     */
    public CredentialBinding validate() {
        if (setsHeader()) {
            checkHeader(header, headerTemplate());
        } else if (template != null) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "a template needs a header to go into (credential " + secretId + ")");
        } else if (envVar == null) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "credential " + secretId + " needs an env variable for its placeholder, or a header to set");
        }
        checkSecretAndHosts(secretId, hosts);
        checkEnvVar(envVar);
        return this;
    }

    /** True when the proxy sets {@link #header}; otherwise it only replaces the placeholder where the sandbox sent it. */
    public boolean setsHeader() { return header != null && !header.isBlank(); }

    /** The header's template: {@code {secret}} alone when none was given. */
    public String headerTemplate() { return template == null ? SECRET_MARKER : template; }

    /** A header that may carry a credential, with a template that places the secret and nothing else. */
    public static void checkHeader(String name, String template) {
        if (name == null || !HeaderNames.isToken(name)) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "header name '" + Text.clip(name, 60) + "' is not a valid HTTP header name");
        }
        if (HeaderNames.HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT)) || name.equalsIgnoreCase("host")
                || name.equalsIgnoreCase("content-length")) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "header '" + name + "' cannot carry a credential");
        }
        if (template == null || !template.contains(SECRET_MARKER)) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "the header template must contain " + SECRET_MARKER + ", e.g. 'Bearer {secret}'");
        }
        if (template.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "the header template must not contain control characters");
        }
    }

    /** A secret id and at least one host in the {@code allowed_hosts} syntax (here an entry without a port matches any port). */
    public static void checkSecretAndHosts(String secretId, List<String> hosts) {
        if (!Ids.isValid("sec", secretId)) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "secret_id must look like sec_0123456789abcdefghjkmnpqrs, got '" + Text.clip(secretId, 40) + "'");
        }
        if (hosts == null || hosts.isEmpty()) throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "a credential rule needs at least one host");
        hosts.forEach(HostPattern::parse);
    }

    /** No variable, or a valid environment variable name. */
    public static void checkEnvVar(String envVar) {
        if (envVar != null && !ENV.matcher(envVar).matches()) {
            throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "env_var '" + Text.clip(envVar, 60) + "' is not a valid environment variable name");
        }
    }
}
