package dev.paddock.server.http;

import io.javalin.config.JavalinConfig;
import io.javalin.http.staticfiles.Location;
import java.util.Map;

/**
 * Serves the web console (a classpath folder) at {@code /} with headers that keep it from being framed, sniffed
 * or made to load foreign code. The API works whether or not the folder exists.
 */
public final class ConsoleFiles {
    /** Inline styles are allowed (not scripts): the terminal (xterm.js) sizes and colours its cells with style elements. */
    public static final Map<String, String> SECURITY_HEADERS = Map.of(
            "Content-Security-Policy", "default-src 'self'; img-src 'self' blob:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
            "X-Content-Type-Options", "nosniff",
            "X-Frame-Options", "DENY",
            "Referrer-Policy", "no-referrer");

    private ConsoleFiles() {}

    /** Registers the folder when it is on the classpath; returns whether it did. */
    public static boolean register(JavalinConfig config, String folder) {
        String dir = folder.startsWith("/") ? folder : "/" + folder;
        if (ConsoleFiles.class.getResource(dir) == null) return false;
        serve(config, dir);
        return true;
    }

    /** Serves a classpath folder at {@code /} beside the console, with the same headers: a module's own pages and scripts. */
    public static void serve(JavalinConfig config, String folder) {
        config.staticFiles.add(sf -> {
            sf.hostedPath = "/";
            sf.directory = folder;
            sf.location = Location.CLASSPATH;
            sf.headers = SECURITY_HEADERS;
        });
    }
}
