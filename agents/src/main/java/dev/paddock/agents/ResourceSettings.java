package dev.paddock.agents;

import java.net.InetAddress;
import java.util.Optional;
import java.util.function.Function;

/**
 * What session resources need from the server: the base that repository urls must start with ({@code github_base_url},
 * default {@code https://github.com/}), the vault that keeps their tokens (null: repositories with a token are
 * refused) and the address check a clone target must pass unless it is the base's own host (app hands in the egress
 * proxy's guard; the default refuses loopback, private, link-local and other non-public addresses).
 */
public record ResourceSettings(String githubBaseUrl, ResourceSecrets secrets, Function<InetAddress, Optional<String>> blockedAddress) {
    public static final String DEFAULT_GITHUB_BASE_URL = "https://github.com/";

    public ResourceSettings {
        if (githubBaseUrl == null || githubBaseUrl.isBlank()) githubBaseUrl = DEFAULT_GITHUB_BASE_URL;
        if (!githubBaseUrl.endsWith("/")) githubBaseUrl = githubBaseUrl + "/";
        if (blockedAddress == null) blockedAddress = ResourceSettings::nonPublic;
    }

    public static ResourceSettings defaults() {
        return new ResourceSettings(null, null, null);
    }

    public ResourceSettings withSecrets(ResourceSecrets s) {
        return new ResourceSettings(githubBaseUrl, s, blockedAddress);
    }

    public ResourceSettings withGithubBaseUrl(String url) {
        return new ResourceSettings(url, secrets, blockedAddress);
    }

    private static Optional<String> nonPublic(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress()) return Optional.of("loopback");
        if (a.isSiteLocalAddress()) return Optional.of("private");
        if (a.isLinkLocalAddress()) return Optional.of("link_local (metadata)");
        if (a.isMulticastAddress()) return Optional.of("multicast");
        byte[] b = a.getAddress();
        if (b.length == 16 && (b[0] & 0xfe) == 0xfc) return Optional.of("private");
        return Optional.empty();
    }
}
