package dev.paddock.init;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where the init agent and the egress files appear inside every sandbox an init-based driver runs, and the
 * environment a sandbox starts with. Shared so that what runs inside (the browser relay, tools reading the
 * proxy variables) finds the same paths on every such driver.
 */
public final class SandboxLayout {
    /** Where the init agent appears inside every sandbox (on the sandbox's private /dev, so images need no mount point). */
    public static final String INIT_PATH = "/dev/.paddock/init";
    /**
     * Where a container driver binds the sandbox's control directory (see {@link SandboxDirs#controlDir()}); init
     * binds {@link #CONTROL_SOCKET} in it ({@code serve --listen}).
     */
    public static final String CONTROL_DIR = "/dev/.paddock/control";
    public static final String CONTROL_SOCKET = "init.sock";
    public static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    /** Where the socket directory and the CA bundle appear (on the sandbox's private /dev, like init: images need nothing). */
    public static final String EGRESS_DIR = "/dev/.paddock/egress";
    public static final String CA_BUNDLE = "/dev/.paddock/ca-certificates.crt";
    public static final String SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
    /** The forwarder init runs on the sandbox's own loopback (see paddock-init.c). */
    public static final String PROXY_URL = "http://127.0.0.1:3128";

    private SandboxLayout() {}

    /** Standard tools find the proxy and the CA bundle through these; localhost stays direct. */
    public static Map<String, String> proxyEnvironment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String k : List.of("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")) {
            env.put(k, PROXY_URL);
            env.put(k.toLowerCase(Locale.ROOT), PROXY_URL);
        }
        env.put("NO_PROXY", "localhost,127.0.0.1");
        env.put("no_proxy", "localhost,127.0.0.1");
        for (String k : List.of("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_CERT")) env.put(k, CA_BUNDLE);
        return env;
    }

    /**
     * The environment a sandbox starts with: PATH, HOME and LANG, the proxy's variables when it has egress, the
     * request's variables, and the credential placeholders last, so nothing in the request can shadow them. Every
     * name and value is checked.
     */
    public static Map<String, String> environment(Map<String, String> requested, boolean egress, Map<String, String> placeholders) {
        Map<String, String> all = new LinkedHashMap<>();
        all.put("PATH", PATH);
        all.put("HOME", "/workspace");
        all.put("LANG", "C.UTF-8");
        if (egress) all.putAll(proxyEnvironment());
        requested.forEach((k, v) -> {
            checkEnv(k, v);
            all.put(k, v);
        });
        placeholders.forEach((k, v) -> {
            checkEnv(k, v);
            all.put(k, v);
        });
        return all;
    }

    public static void checkEnv(String k, String v) {
        if (k == null || k.isEmpty() || k.indexOf('=') >= 0 || k.indexOf('\0') >= 0) {
            throw new PaddockException(ErrorCode.INVALID_ENV, "environment variable names must be non-empty without '=' or NUL, got '" + Text.clip(k, 60) + "'");
        }
        if (v == null || v.indexOf('\0') >= 0) {
            throw new PaddockException(ErrorCode.INVALID_ENV, "the value of environment variable " + Text.clip(k, 60) + " must be a string without NUL");
        }
    }
}
