package dev.paddock.egress;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;

/**
 * Where a credential goes in an outbound request: only ever header values, and only on requests inside an intercepted
 * TLS session to the rule's host (see {@link SandboxCredentials}); the URL and the body are never rewritten.
 */
public sealed interface Placement {
    /** Marker in a header template replaced by the secret value. */
    String SECRET_MARKER = "{secret}";

    /**
     * Sets header {@code name} to {@code template} with {@code {secret}} replaced by the value, on every request to
     * the rule's hosts (replacing a header of that name the sandbox sent), e.g. {@code Authorization: Bearer {secret}}.
     */
    record Header(String name, String template) implements Placement {
        public Header {
            if (name == null || !HttpHeads.isToken(name)) {
                throw new PaddockException(ErrorCode.INVALID_CREDENTIAL_RULE, "header name '" + Text.clip(name, 60) + "' is not a valid HTTP header name");
            }
            if (Headers.HOP_BY_HOP.contains(name.toLowerCase(java.util.Locale.ROOT)) || name.equalsIgnoreCase("host")
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
    }

    /** Only replaces the sandbox's placeholder token wherever it appears in request header values (not the URL or body). */
    record ReplacePlaceholder() implements Placement {}

    static Placement header(String name, String template) { return new Header(name, template); }

    static Placement replacePlaceholder() { return new ReplacePlaceholder(); }
}
