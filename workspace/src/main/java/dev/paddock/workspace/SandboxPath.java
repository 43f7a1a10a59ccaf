package dev.paddock.workspace;

import dev.paddock.core.spi.Workspace;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Lexical checks and splitting of paths as seen inside the sandbox. A parsed path is a list of single
 * components ({@code ..} kept for the resolver, which follows POSIX semantics); it never climbs above
 * {@code /workspace} lexically.
 */
final class SandboxPath {
    static final int MAX_PATH_BYTES = 4096;
    static final int MAX_NAME_BYTES = 255;

    private SandboxPath() {}

    /** A symlink target or user path: {@code fromRoot} is true for absolute paths (restart at /workspace). */
    record Parsed(boolean fromRoot, List<String> components) {}

    /** A path given by a caller: "/workspace/a", "a/b" (relative to /workspace) or "/workspace". */
    static List<String> parse(String path) {
        return parse(path, Workspace.ROOT);
    }

    /** The same under another virtual root, e.g. /mnt/session/outputs. */
    static List<String> parse(String path, String root) {
        return parse(path, path, true, root).components();
    }

    /** Whether a path ends in "/" or "/." (or is "."), so that what it names must be a directory. */
    static boolean namesADirectory(String path) {
        return path != null && (path.endsWith("/") || path.endsWith("/.") || path.equals("."));
    }

    /** A symlink target read inside the workspace; {@code original} is the caller's path, for messages. */
    static Parsed parseLinkTarget(String target, String original, String root) {
        if (target.isEmpty()) throw WorkspaceErrors.invalidPath(original, "it goes through an empty symbolic link");
        return parse(target, original, false, root);
    }

    private static Parsed parse(String path, String original, boolean checkClimb, String root) {
        if (path == null) throw WorkspaceErrors.invalidPath("null", "a path is required");
        if (path.indexOf('\0') >= 0) throw WorkspaceErrors.invalidPath(original, "it contains a NUL byte");
        if (path.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            throw WorkspaceErrors.invalidPath(original, "it is longer than " + MAX_PATH_BYTES + " bytes");
        }
        boolean fromRoot = path.startsWith("/");
        String rest = path;
        if (fromRoot) {
            if (path.equals(root)) rest = "";
            else if (path.startsWith(root + "/")) rest = path.substring(root.length() + 1);
            else throw WorkspaceErrors.outside(original, root);
        }
        List<String> components = new ArrayList<>();
        int depth = 0;
        for (String part : rest.split("/")) {
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
                throw WorkspaceErrors.invalidPath(original, "a component is longer than " + MAX_NAME_BYTES + " bytes");
            }
            if (part.equals("..")) {
                if (--depth < 0 && checkClimb) throw WorkspaceErrors.outside(original, root);
            } else {
                depth++;
            }
            components.add(part);
        }
        return new Parsed(fromRoot || checkClimb, components);
    }
}
