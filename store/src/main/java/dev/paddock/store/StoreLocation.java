package dev.paddock.store;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where the store lives, from the {@code store_url} setting: a SQLite file ({@code sqlite:/path/paddock.db}, or no
 * setting at all: the data directory's own file) or a PostgreSQL database, written as libpq writes it
 * ({@code postgresql://user:password@host:5432/paddock?sslmode=require}) or as a JDBC URL
 * ({@code jdbc:postgresql://host/paddock?user=…}). The password is kept apart from the URL so that the URL can be
 * shown in logs and messages.
 */
public sealed interface StoreLocation {
    record Sqlite(Path file) implements StoreLocation {
        @Override
        public String display() { return "sqlite:" + file; }
    }

    /**
     * @param jdbcUrl    {@code jdbc:postgresql://host:port/database} with the query parameters other than user, password
     *                   and options
     * @param user       null when not given (the driver then uses the OS user's name)
     * @param password   null when not given
     * @param options    the URL's {@code options} (startup options, {@code -c name=value ...}); null when not given.
     *                   Kept apart so the store can add its own to them instead of losing one or the other.
     */
    record Postgres(String jdbcUrl, String user, String password, String options) implements StoreLocation {
        public Postgres(String jdbcUrl, String user, String password) {
            this(jdbcUrl, user, password, null);
        }

        @Override
        public String display() { return jdbcUrl + (user == null ? "" : " as " + user); }

        @Override
        public String toString() {
            return "Postgres[" + display() + "]"; // never the password
        }
    }

    /** A description without secrets, for logs and messages. */
    String display();

    /** Reads {@code store_url}; null or blank means the SQLite file {@code defaultSqlite}. */
    static StoreLocation parse(String url, Path defaultSqlite) {
        if (url == null || url.isBlank()) return new Sqlite(defaultSqlite);
        String u = url.strip();
        if (u.startsWith("sqlite:")) return new Sqlite(Path.of(u.substring("sqlite:".length())));
        if (u.startsWith("jdbc:postgresql:")) return postgres(u.substring("jdbc:".length()), u);
        if (u.startsWith("postgresql:") || u.startsWith("postgres:")) return postgres(u, u);
        throw refuse("store_url must start with postgresql://, jdbc:postgresql:// or sqlite:");
    }

    private static Postgres postgres(String url, String original) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw refuse("store_url is not a valid URL (" + e.getReason() + ")");
        }
        if (uri.getHost() == null || uri.getHost().isBlank()) throw refuse("store_url names no host");
        String path = uri.getRawPath();
        if (path == null || path.length() < 2) throw refuse("store_url names no database (postgresql://host/DATABASE)");
        String user = null;
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String[] parts = uri.getRawUserInfo().split(":", 2);
            user = decode(parts[0]);
            if (parts.length == 2) password = decode(parts[1]);
        }
        Map<String, String> query = new LinkedHashMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                if (pair.isEmpty()) continue;
                String[] kv = pair.split("=", 2);
                query.put(decode(kv[0]), kv.length == 2 ? decode(kv[1]) : "");
            }
        }
        if (query.containsKey("user")) user = query.remove("user");
        if (query.containsKey("password")) password = query.remove("password");
        String options = query.remove("options");
        StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getRawAuthority().replaceFirst("^.*@", "")).append(path);
        String sep = "?";
        for (Map.Entry<String, String> e : query.entrySet()) {
            jdbc.append(sep).append(encode(e.getKey())).append('=').append(encode(e.getValue()));
            sep = "&";
        }
        return new Postgres(jdbc.toString(), user, password, options);
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static PaddockException refuse(String why) {
        return new PaddockException(ErrorCode.STORE_OPEN_FAILED, why);
    }
}
