package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where environment packages come from besides the public registries (a company mirror): a pip index URL, an npm
 * registry URL, and an apt sources file (one-line or deb822 format) used instead of the host's, each null for the
 * public ones. The builder sandbox may reach the pip and npm mirrors' hosts besides the package managers' own; an apt
 * mirror's host must be allowed the same way, so its URLs are read from the file.
 */
public record PackageMirrors(String pipIndexUrl, String npmRegistry, Path aptSources) {
    public static final PackageMirrors NONE = new PackageMirrors(null, null, null);

    public PackageMirrors {
        if (aptSources != null && !Files.isRegularFile(aptSources)) {
            throw new PaddockException(ErrorCode.INVALID_MIRROR, "the apt sources file " + aptSources + " does not exist");
        }
        check("pip index (packages_pip_index_url)", pipIndexUrl);
        check("npm registry (packages_npm_registry)", npmRegistry);
    }

    private static void check(String what, String url) {
        if (url == null) return;
        URI u;
        try {
            u = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new PaddockException(ErrorCode.INVALID_MIRROR, "the " + what + " '" + url + "' is not a URL");
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
            throw new PaddockException(ErrorCode.INVALID_MIRROR, "the " + what + " '" + url + "' must be an http:// or https:// URL with a host");
        }
    }

    /** The builder's environment: what pip and npm read their source from. */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        if (pipIndexUrl != null) env.put("PIP_INDEX_URL", pipIndexUrl);
        if (npmRegistry != null) env.put("npm_config_registry", npmRegistry);
        return env;
    }

    /** The mirrors' hosts (with their port when not the scheme's), for the builder's allowlist. */
    List<String> hosts() {
        List<String> hosts = new ArrayList<>();
        List<String> urls = new ArrayList<>();
        if (pipIndexUrl != null) urls.add(pipIndexUrl);
        if (npmRegistry != null) urls.add(npmRegistry);
        if (aptSources != null) {
            try {
                Matcher m = Pattern.compile("https?://[^\\s\\]]+").matcher(Files.readString(aptSources));
                while (m.find()) urls.add(m.group());
            } catch (IOException e) {
                throw new PaddockException(ErrorCode.INVALID_MIRROR, "cannot read the apt sources file " + aptSources + ": " + e.getMessage());
            }
        }
        for (String url : urls) {
            URI u = URI.create(url);
            hosts.add(u.getPort() < 0 ? u.getHost() : u.getHost() + ":" + u.getPort());
        }
        return hosts;
    }
}
