package dev.paddock.images;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the Debian mirror the host's apt already uses, so image builds go where this machine is allowed to reach.
 * Reads one-line {@code sources.list} files and deb822 {@code *.sources} files; security and update suites are
 * skipped because debootstrap needs the main archive.
 */
final class HostAptMirror {
    static final String DEFAULT_MIRROR = "http://deb.debian.org/debian";
    private static final Pattern ONE_LINE = Pattern.compile("^\\s*deb\\s+(?:\\[[^]]*]\\s+)?(\\S+)\\s+(\\S+)");

    private HostAptMirror() {}

    /** The host's Debian mirror for {@code suite}, else any Debian mirror it uses, else deb.debian.org. */
    static String detect(Path etcApt, String suite) {
        return find(etcApt, (uri, suites) -> suites.contains(suite))
                .or(() -> find(etcApt, HostAptMirror::looksLikeDebianMain))
                .orElse(DEFAULT_MIRROR);
    }

    private interface SourceFilter {
        boolean accept(String uri, List<String> suites);
    }

    private static Optional<String> find(Path etcApt, SourceFilter filter) {
        List<Path> files = new ArrayList<>();
        files.add(etcApt.resolve("sources.list"));
        Path dir = etcApt.resolve("sources.list.d");
        if (Files.isDirectory(dir)) {
            try (var list = Files.list(dir)) {
                list.filter(p -> p.toString().endsWith(".list") || p.toString().endsWith(".sources"))
                        .sorted().forEach(files::add);
            } catch (IOException e) {
                // unreadable directory: fall back to the default mirror
            }
        }
        for (Path file : files) {
            Optional<String> found = file.toString().endsWith(".sources") ? fromDeb822(file, filter) : fromOneLine(file, filter);
            if (found.isPresent()) return found;
        }
        return Optional.empty();
    }

    private static Optional<String> fromOneLine(Path file, SourceFilter filter) {
        for (String line : lines(file)) {
            Matcher m = ONE_LINE.matcher(line);
            if (m.find() && isHttp(m.group(1)) && filter.accept(m.group(1), List.of(m.group(2)))) return Optional.of(trim(m.group(1)));
        }
        return Optional.empty();
    }

    private static Optional<String> fromDeb822(Path file, SourceFilter filter) {
        String types = null;
        List<String> uris = List.of();
        List<String> suites = List.of();
        List<String> lines = new ArrayList<>(lines(file));
        lines.add(""); // flush the last stanza
        for (String line : lines) {
            if (line.isBlank()) {
                if (types != null && List.of(types.split("\\s+")).contains("deb")) {
                    for (String uri : uris) if (isHttp(uri) && filter.accept(uri, suites)) return Optional.of(trim(uri));
                }
                types = null;
                uris = List.of();
                suites = List.of();
                continue;
            }
            if (line.startsWith("#")) continue;
            int colon = line.indexOf(':');
            if (colon < 0) continue;
            String key = line.substring(0, colon).trim().toLowerCase();
            String value = line.substring(colon + 1).trim();
            switch (key) {
                case "types" -> types = value;
                case "uris" -> uris = List.of(value.split("\\s+"));
                case "suites" -> suites = List.of(value.split("\\s+"));
                default -> { }
            }
        }
        return Optional.empty();
    }

    private static boolean isHttp(String uri) {
        return uri.startsWith("http://") || uri.startsWith("https://");
    }

    /** A main Debian archive: not a -security / -updates / -backports suite. */
    private static boolean looksLikeDebianMain(String uri, List<String> suites) {
        if (!uri.contains("debian") || uri.contains("security")) return false;
        return suites.stream().anyMatch(s -> !s.contains("-") && !s.contains("/"));
    }

    private static String trim(String uri) {
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    private static List<String> lines(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readAllLines(file) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }
}
