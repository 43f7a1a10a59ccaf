package dev.paddock.egress.vault;

import dev.paddock.core.spi.CredentialBinding;

/**
 * Where a credential goes in an outbound request: only ever header values, and only on requests inside an intercepted
 * TLS session to the rule's host (see the proxy's {@code SandboxCredentials}); the URL and the body are never rewritten.
 */
public sealed interface Placement {
    /** Marker in a header template replaced by the secret value. */
    String SECRET_MARKER = CredentialBinding.SECRET_MARKER;

    /**
     * Sets header {@code name} to {@code template} with {@code {secret}} replaced by the value, on every request to
     * the rule's hosts (replacing a header of that name the sandbox sent), e.g. {@code Authorization: Bearer {secret}}.
     */
    record Header(String name, String template) implements Placement {
        public Header {
            CredentialBinding.checkHeader(name, template);
        }
    }

    /** Only replaces the sandbox's placeholder token wherever it appears in request header values (not the URL or body). */
    record ReplacePlaceholder() implements Placement {}

    static Placement header(String name, String template) { return new Header(name, template); }

    static Placement replacePlaceholder() { return new ReplacePlaceholder(); }
}
