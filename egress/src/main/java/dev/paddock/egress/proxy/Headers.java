package dev.paddock.egress.proxy;

import dev.paddock.core.egress.HeaderNames;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;

/** An ordered, case-insensitive list of header fields. Never logged: values may carry credentials. */
final class Headers {
    private final List<String[]> fields = new ArrayList<>();

    void add(String name, String value) { fields.add(new String[] {name, value}); }

    String first(String name) {
        for (String[] f : fields) if (f[0].equalsIgnoreCase(name)) return f[1];
        return null;
    }

    List<String> all(String name) {
        List<String> out = new ArrayList<>();
        for (String[] f : fields) if (f[0].equalsIgnoreCase(name)) out.add(f[1]);
        return out;
    }

    void remove(String name) { fields.removeIf(f -> f[0].equalsIgnoreCase(name)); }

    void set(String name, String value) {
        remove(name);
        add(name, value);
    }

    void replaceValues(UnaryOperator<String> op) {
        for (String[] f : fields) f[1] = op.apply(f[1]);
    }

    boolean anyValueContains(String needle) {
        for (String[] f : fields) if (f[1].contains(needle)) return true;
        return false;
    }

    /** True when a comma-separated header (e.g. Connection) lists {@code token}. */
    boolean hasToken(String name, String token) {
        for (String v : all(name)) {
            for (String part : v.split(",")) if (part.strip().equalsIgnoreCase(token)) return true;
        }
        return false;
    }

    /** A copy without hop-by-hop headers and without the headers the Connection header names. */
    Headers forwardable() {
        Set<String> drop = new HashSet<>(HeaderNames.HOP_BY_HOP);
        for (String v : all("connection")) for (String part : v.split(",")) drop.add(part.strip().toLowerCase(Locale.ROOT));
        Headers out = new Headers();
        for (String[] f : fields) if (!drop.contains(f[0].toLowerCase(Locale.ROOT))) out.add(f[0], f[1]);
        return out;
    }

    void writeTo(StringBuilder sb) {
        for (String[] f : fields) sb.append(f[0]).append(": ").append(f[1]).append("\r\n");
    }
}
