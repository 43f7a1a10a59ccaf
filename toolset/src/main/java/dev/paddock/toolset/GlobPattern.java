package dev.paddock.toolset;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.PatternSyntaxException;

/**
 * A doublestar glob over relative paths: {@code *} stays within a directory, {@code **} crosses directories, and
 * {@code **}{@code /} also matches zero directories (so {@code **}{@code /*.go} matches {@code main.go}). Built on the
 * JDK's glob matcher, whose {@code **}{@code /} needs at least one directory, by also trying each variant with
 * some {@code **}{@code /} removed.
 */
final class GlobPattern {
    private static final int MAX_DOUBLESTARS = 4;
    private final List<PathMatcher> matchers;

    private GlobPattern(List<PathMatcher> matchers) {
        this.matchers = matchers;
    }

    /** @throws IllegalArgumentException with a message for the model when the pattern is unusable */
    static GlobPattern compile(String pattern) {
        if (pattern.startsWith("/")) throw new IllegalArgumentException("pattern must be relative; put the directory in path");
        for (String part : pattern.split("[/{},]")) {
            if (part.equals("..")) throw new IllegalArgumentException("'..' is not allowed in the pattern");
        }
        Set<String> variants = new LinkedHashSet<>();
        expand(pattern, 0, variants);
        List<PathMatcher> matchers = new ArrayList<>();
        try {
            for (String v : variants) matchers.add(FileSystems.getDefault().getPathMatcher("glob:" + v));
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("invalid glob pattern: " + e.getDescription());
        }
        return new GlobPattern(matchers);
    }

    boolean matches(String relativePath) {
        Path p = Path.of(relativePath);
        for (PathMatcher m : matchers) if (m.matches(p)) return true;
        return false;
    }

    private static void expand(String pattern, int depth, Set<String> out) {
        out.add(pattern);
        if (depth >= MAX_DOUBLESTARS) return;
        for (int i = pattern.indexOf("**/"); i >= 0; i = pattern.indexOf("**/", i + 1)) {
            if (i == 0 || pattern.charAt(i - 1) == '/') {
                expand(pattern.substring(0, i) + pattern.substring(i + 3), depth + 1, out);
            }
        }
    }
}
