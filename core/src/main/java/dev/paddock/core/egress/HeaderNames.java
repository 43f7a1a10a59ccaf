package dev.paddock.core.egress;

import java.util.Set;

/** HTTP header names as the egress proxy reads them and as credential bindings may name them. */
public final class HeaderNames {
    /** Connection-level headers that a proxy must not forward (RFC 9110 §7.6.1), plus proxy credentials. */
    public static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "proxy-authorization",
            "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade");

    private HeaderNames() {}

    /** True when {@code s} is an RFC 9110 token, the syntax of header names and methods. */
    public static boolean isToken(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!ok) return false;
        }
        return true;
    }
}
