package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.regex.Pattern;

/**
 * Repository urls a session may clone: {@code <github_base_url><owner>/<repo>[.git]} and nothing else (no user info,
 * query or fragment), so a session cannot make the host fetch from anywhere it likes.
 */
final class RepositoryUrls {
    private static final Pattern REPO_PATH = Pattern.compile("[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}");

    private RepositoryUrls() {}

    /** Answers the url unchanged when it may be cloned; a 400 that names {@code field} otherwise. */
    static String check(String url, String base, String field) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw refused(field, url, base, "is not a URL");
        }
        if (uri.getRawUserInfo() != null) throw refused(field, url, base, "must not carry credentials; send authorization_token instead");
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) throw refused(field, url, base, "must not have a query or fragment");
        if (!url.startsWith(base)) throw refused(field, url, base, "must start with " + base + " (the server's github_base_url)");
        String rest = url.substring(base.length());
        if (!REPO_PATH.matcher(rest).matches() || rest.contains("..")) throw refused(field, url, base, "must be " + base + "<owner>/<repo>");
        return url;
    }

    /** The repository's name, for the default mount path {@code /workspace/<repo-name>}. */
    static String repoName(String url) {
        String name = url.substring(url.lastIndexOf('/') + 1);
        return name.endsWith(".git") && name.length() > 4 ? name.substring(0, name.length() - 4) : name;
    }

    private static PaddockException refused(String field, String url, String base, String why) {
        return new PaddockException(ErrorCode.REPOSITORY_URL_NOT_ALLOWED, "field '" + field + "' ('" + Text.clip(url, 100) + "') " + why);
    }
}
