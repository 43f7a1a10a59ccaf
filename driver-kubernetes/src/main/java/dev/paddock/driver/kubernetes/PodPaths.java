package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Turns a caller's path into an absolute one under a root ({@code /workspace} or the outputs directory), lexically:
 * "a/b" and "/workspace/a/b" are the same file, and anything that climbs out is refused here. Symlinks are checked
 * inside the pod by {@link ExecWorkspace}'s scripts.
 */
final class PodPaths {
    private PodPaths() {}

    static String resolve(String root, String path) {
        if (path == null || path.isEmpty() || path.equals(".")) return root;
        if (path.indexOf('\0') >= 0) throw new PaddockException(ErrorCode.INVALID_PATH, "the path contains a NUL byte");
        String relative;
        if (path.startsWith("/")) {
            if (!path.equals(root) && !path.startsWith(root + "/")) throw outside(root, path);
            relative = path.substring(root.length());
        } else {
            relative = path;
        }
        Deque<String> parts = new ArrayDeque<>();
        for (String part : relative.split("/")) {
            if (part.isEmpty() || part.equals(".")) continue;
            if (part.equals("..")) {
                if (parts.isEmpty()) throw outside(root, path);
                parts.removeLast();
            } else {
                parts.addLast(part);
            }
        }
        return parts.isEmpty() ? root : root + "/" + String.join("/", parts);
    }

    private static PaddockException outside(String root, String path) {
        return new PaddockException(ErrorCode.PATH_OUTSIDE_WORKSPACE, "path " + path + " is outside " + root);
    }
}
