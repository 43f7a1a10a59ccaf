package dev.paddock.agents;

import dev.paddock.core.Text;
import dev.paddock.core.egress.SecretValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Clones a repository on the host with the system {@code git}, never in the sandbox. The token goes to git as an
 * {@code http.extraHeader} in {@code GIT_CONFIG_*} environment variables of that one process (not its command line,
 * which other users can read in /proc, and not any file), so the clone's {@code .git/config} holds only the url. No
 * system or user configuration, credential helper or prompt is used; redirects are not followed; only the url's own
 * scheme is allowed. The host name is resolved once and pinned ({@code http.curloptResolve}); unless it is the
 * configured base's host, an address the guard refuses (loopback, private, metadata) stops the clone.
 */
final class GitClone {
    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    private static final int MAX_STDERR = 16 * 1024;

    /** A clone that failed, with the SDK's {@code session.error} type for it. */
    static final class Failure extends RuntimeException {
        private final String errorType;

        Failure(String errorType, String message) {
            super(message);
            this.errorType = errorType;
        }

        String errorType() { return errorType; }
    }

    private final String baseUrl;
    private final Function<InetAddress, Optional<String>> blocked;

    GitClone(String baseUrl, Function<InetAddress, Optional<String>> blocked) {
        this.baseUrl = baseUrl;
        this.blocked = blocked;
    }

    /** Clones {@code url} into {@code target} (which must not exist) and checks out {@code checkout}. */
    void cloneInto(String url, Map<String, Object> checkout, SecretValue token, Path target) {
        URI uri = URI.create(url);
        Map<String, String> config = new LinkedHashMap<>();
        config.put("protocol.allow", "never");
        config.put("protocol." + uri.getScheme() + ".allow", "always");
        config.put("credential.helper", "");
        config.put("http.followRedirects", "false");
        config.put("http.curloptResolve", pin(uri));
        if (token != null) {
            String basic = Base64.getEncoder().encodeToString(("x-access-token:" + token.reveal()).getBytes(StandardCharsets.UTF_8));
            config.put("http.extraHeader", "Authorization: Basic " + basic);
        }
        List<String> cloneArgs = new ArrayList<>(List.of("clone", "--quiet"));
        String type = checkout == null ? null : (String) checkout.get("type");
        if ("branch".equals(type)) cloneArgs.addAll(List.of("--branch", (String) checkout.get("name")));
        if ("commit".equals(type)) cloneArgs.add("--no-checkout");
        cloneArgs.addAll(List.of("--", url, target.toString()));
        String err = git(cloneArgs, config, target.getParent());
        if (err != null) throw classify(err, url, checkout);
        if ("commit".equals(type)) {
            String sha = (String) checkout.get("sha");
            String checkoutErr = git(List.of("-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", sha, "--"),
                    Map.of("protocol.allow", "never"), target);
            if (checkoutErr != null) {
                throw new Failure("repository_checkout_error", "commit " + Text.clip(sha, 64) + " of " + url + " cannot be checked out: "
                        + Text.clip(checkoutErr.strip(), 300));
            }
        }
    }

    /** Resolves the url's host once, checks it and answers git's pin {@code host:port:address}. */
    private String pin(URI uri) {
        String host = uri.getHost();
        int port = uri.getPort() > 0 ? uri.getPort() : "http".equals(uri.getScheme()) ? 80 : 443;
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new Failure("repository_clone_error", "the host of " + uri + " cannot be resolved");
        }
        boolean baseHost = host.equalsIgnoreCase(URI.create(baseUrl).getHost());
        if (!baseHost) {
            blocked.apply(address).ifPresent(reason -> {
                throw new Failure("repository_clone_error", "the host of " + uri + " resolves to " + address.getHostAddress()
                        + ", which is refused (" + reason + "); only the github_base_url's own host may be a private address");
            });
        }
        String literal = address.getHostAddress();
        if (literal.contains(":")) literal = "[" + literal + "]";
        return host + ":" + port + ":" + literal;
    }

    /** Runs git; null when it succeeded, else what it wrote to stderr. */
    private static String git(List<String> args, Map<String, String> config, Path cwd) {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", "/usr/bin:/bin");
        env.put("HOME", cwd.toString());
        env.put("LANG", "C");
        env.put("LC_ALL", "C");
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GIT_CONFIG_COUNT", String.valueOf(config.size()));
        int i = 0;
        for (Map.Entry<String, String> e : config.entrySet()) {
            env.put("GIT_CONFIG_KEY_" + i, e.getKey());
            env.put("GIT_CONFIG_VALUE_" + i, e.getValue());
            i++;
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new Failure("repository_clone_error", "git cannot be started on the Paddock host: " + Text.clip(e.getMessage(), 200));
        }
        try (InputStream stderr = p.getErrorStream()) {
            byte[] err = stderr.readNBytes(MAX_STDERR);
            stderr.transferTo(OutputStream.nullOutputStream());
            if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new Failure("repository_clone_error", "git did not finish within " + TIMEOUT.toMinutes() + " minutes");
            }
            return p.exitValue() == 0 ? null : new String(err, StandardCharsets.UTF_8);
        } catch (IOException e) {
            p.destroyForcibly();
            throw new Failure("repository_clone_error", "git's output could not be read: " + Text.clip(e.getMessage(), 200));
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new Failure("repository_clone_error", "the clone was interrupted");
        }
    }

    /** git's message, read for what went wrong; it never holds the token (that is only in the process environment). */
    private static Failure classify(String stderr, String url, Map<String, Object> checkout) {
        String s = stderr.toLowerCase(Locale.ROOT);
        String detail = Text.clip(stderr.strip().replace('\n', ' '), 300);
        if (s.contains("terminal prompts disabled") || s.contains("authentication failed") || s.contains("error: 401")) {
            return new Failure("repository_authentication_error", "the repository " + url + " refused the authorization token (or needs one): " + detail);
        }
        if (s.contains("error: 403")) return new Failure("repository_forbidden_error", "access to " + url + " is forbidden: " + detail);
        if (s.contains("not found") && checkout != null && s.contains("remote branch")) {
            return new Failure("repository_checkout_error", "branch " + checkout.get("name") + " does not exist in " + url + ": " + detail);
        }
        if (s.contains("error: 404") || s.contains("not found")) return new Failure("repository_not_found_error", "no repository at " + url + ": " + detail);
        return new Failure("repository_clone_error", "cloning " + url + " failed: " + detail);
    }
}
