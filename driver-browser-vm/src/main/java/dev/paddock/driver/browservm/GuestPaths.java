package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.Workspace;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Lexical checks of paths before they leave for the tab: relative paths are under /workspace, {@code ..} may not
 * climb out, other absolute paths are refused. Symlinks are resolved by the tab, which refuses the same way.
 */
final class GuestPaths {
    private GuestPaths() {}

    static String inWorkspace(String path) {
        if (path == null || path.isEmpty()) return Workspace.ROOT;
        if (path.length() > 4096 || path.indexOf('\0') >= 0) throw outside(path);
        String full = path.startsWith("/") ? path : Workspace.ROOT + "/" + path;
        Deque<String> parts = new ArrayDeque<>();
        for (String p : full.split("/")) {
            if (p.isEmpty() || p.equals(".")) continue;
            if (p.equals("..")) {
                if (parts.isEmpty()) throw outside(path);
                parts.removeLast();
            } else {
                parts.addLast(p);
            }
        }
        String normal = "/" + String.join("/", parts);
        if (!normal.equals(Workspace.ROOT) && !normal.startsWith(Workspace.ROOT + "/")) throw outside(path);
        return normal;
    }

    static PaddockException outside(String path) {
        return new PaddockException(ErrorCode.PATH_OUTSIDE_WORKSPACE,
                "path '" + Text.clip(path, 200) + "' is outside /workspace; give a path under /workspace or relative to it");
    }
}
