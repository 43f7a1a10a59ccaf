package dev.paddock.core.egress;

import java.util.Locale;

/** What the proxy did with one connection or request. {@link #wireName()} is the snake_case form used in the API. */
public enum EgressDecision {
    /** Forwarded (or tunnelled) to the destination. */
    ALLOWED,
    /** Refused by the policy or the address guard; nothing was sent upstream. */
    DENIED,
    /** Forwarded, but it carried a credential placeholder to a host outside that credential's rule; the placeholder was left as is. */
    PLACEHOLDER_TO_UNLISTED_HOST,
    /** Malformed request, unreachable upstream, TLS failure or time limit: see {@code rule} for which. */
    ERROR;

    public String wireName() { return name().toLowerCase(Locale.ROOT); }
}
