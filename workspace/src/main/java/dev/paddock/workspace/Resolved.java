package dev.paddock.workspace;

import dev.paddock.core.spi.Workspace;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a sandbox path landed: an open descriptor of the directory that holds it (or of the root itself when
 * {@code name} is null), the final name, the canonical components (no symlinks) and the final entry's
 * lstat, null when it does not exist.
 */
record Resolved(Fd dir, String name, List<String> parentComponents, Stat stat, String virtualRoot) implements AutoCloseable {
    boolean isRoot() { return name == null; }

    boolean exists() { return stat != null; }

    List<String> components() {
        List<String> all = new ArrayList<>(parentComponents);
        if (name != null) all.add(name);
        return all;
    }

    /** The canonical path as seen inside the sandbox. */
    String sandboxPath() {
        return toSandboxPath(virtualRoot, components());
    }

    static String toSandboxPath(List<String> components) {
        return toSandboxPath(Workspace.ROOT, components);
    }

    static String toSandboxPath(String root, List<String> components) {
        return components.isEmpty() ? root : root + "/" + String.join("/", components);
    }

    @Override
    public void close() {
        dir.close();
    }
}
