package dev.paddock.workspace;

import dev.paddock.core.spi.Workspace;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Walks a sandbox path one component at a time with openat(O_NOFOLLOW | O_DIRECTORY) from the workspace root,
 * so a directory swapped for a symlink mid-walk is noticed (ELOOP) instead of followed. Symlinks are read and
 * their targets re-resolved here: absolute targets are sandbox paths (only /workspace/... is allowed), relative
 * ones continue from the link's directory, and ".." pops a held descriptor, so nothing can step above the root.
 */
final class Resolver {
    static final int MAX_LINK_HOPS = 40;
    private static final int DIR_MODE = 0755;

    private final Ownership owner;
    private final String virtualRoot;

    Resolver(Ownership owner) {
        this(owner, Workspace.ROOT);
    }

    /** {@code virtualRoot}: where the tree appears inside the sandbox, e.g. /workspace or /mnt/session/outputs. */
    Resolver(Ownership owner, String virtualRoot) {
        this.owner = owner;
        this.virtualRoot = virtualRoot;
    }

    String virtualRoot() { return virtualRoot; }

    /**
     * @param followFinal follow a symlink in the last component (read/write/list) or not (stat/delete)
     * @param createParents create missing intermediate directories (owned by the workspace owner)
     */
    Resolved resolve(Fd root, String path, boolean followFinal, boolean createParents) {
        Deque<String> pending = new ArrayDeque<>(SandboxPath.parse(path, virtualRoot));
        boolean directoryOnly = SandboxPath.namesADirectory(path); // "a/" or "a/.": as in POSIX, a is a directory
        List<Fd> held = new ArrayList<>();
        List<String> names = new ArrayList<>();
        int hops = 0;
        int createdDepth = -1;
        String createdName = null;
        try {
            while (!pending.isEmpty()) {
                String name = pending.removeFirst();
                int dir = held.isEmpty() ? root.fd() : held.getLast().fd();
                if (name.equals("..")) {
                    if (held.isEmpty()) throw WorkspaceErrors.outside(path, virtualRoot);
                    held.removeLast().close();
                    names.removeLast();
                    continue;
                }
                boolean last = pending.isEmpty();
                Stat stat;
                try {
                    stat = Posix.stat(dir, name);
                } catch (Errno e) {
                    if (e.errno() != Errno.ENOENT) throw WorkspaceErrors.of(e, path);
                    if (last) return result(dir, name, names, null);
                    if (!createParents) throw WorkspaceErrors.notFound(path);
                    // a deep path makes one directory per level; making the same one again means it was deleted
                    // meanwhile: that race is what is bounded, not the depth
                    if (held.size() == createdDepth && name.equals(createdName) && ++hops > MAX_LINK_HOPS) throw WorkspaceErrors.tooManyLinks(path);
                    createDirectory(dir, name, path);
                    createdDepth = held.size();
                    createdName = name;
                    pending.addFirst(name);
                    continue;
                }
                if (stat.isSymlink() && (!last || followFinal)) {
                    if (++hops > MAX_LINK_HOPS) throw WorkspaceErrors.tooManyLinks(path);
                    String target;
                    try {
                        target = Posix.readlinkat(dir, name);
                    } catch (Errno e) {
                        pending.addFirst(name); // replaced since the stat: look again
                        continue;
                    }
                    SandboxPath.Parsed parsed = SandboxPath.parseLinkTarget(target, path, virtualRoot);
                    if (parsed.fromRoot()) {
                        held.forEach(Fd::close);
                        held.clear();
                        names.clear();
                    }
                    List<String> targetComponents = parsed.components();
                    for (int i = targetComponents.size() - 1; i >= 0; i--) pending.addFirst(targetComponents.get(i));
                    continue;
                }
                if (last && directoryOnly && !stat.isDirectory() && !stat.isSymlink()) throw WorkspaceErrors.notADirectory(path);
                if (last) return result(dir, name, names, stat);
                if (!stat.isDirectory()) throw WorkspaceErrors.notADirectory(path);
                try {
                    held.add(Fd.openDirectory(dir, name));
                    names.add(name);
                } catch (Errno e) {
                    if (e.errno() != Errno.ELOOP && e.errno() != Errno.ENOTDIR && e.errno() != Errno.ENOENT) {
                        throw WorkspaceErrors.of(e, path);
                    }
                    if (++hops > MAX_LINK_HOPS) throw WorkspaceErrors.tooManyLinks(path);
                    pending.addFirst(name); // swapped since the stat: look again
                }
            }
            int dir = held.isEmpty() ? root.fd() : held.getLast().fd();
            // the path names a directory itself (the root, or ends in "..")
            if (names.isEmpty()) return new Resolved(Fd.openDirectory(dir, "."), null, List.of(), Posix.stat(dir, ""), virtualRoot);
            String name = names.removeLast();
            held.removeLast().close();
            int parent = held.isEmpty() ? root.fd() : held.getLast().fd();
            return result(parent, name, names, Posix.stat(parent, name));
        } catch (Errno e) {
            throw WorkspaceErrors.of(e, path);
        } finally {
            held.forEach(Fd::close);
        }
    }

    private Resolved result(int dir, String name, List<String> names, Stat stat) {
        return new Resolved(Fd.openDirectory(dir, "."), name, List.copyOf(names), stat, virtualRoot);
    }

    /** mkdirat + chown; losing a race to a concurrent creator is fine, the caller looks again. */
    void createDirectory(int dir, String name, String path) {
        try {
            Posix.mkdirat(dir, name, DIR_MODE);
        } catch (Errno e) {
            if (e.errno() == Errno.EEXIST) return;
            throw WorkspaceErrors.of(e, path);
        }
        try (Fd created = Fd.openDirectory(dir, name)) {
            Posix.fchmod(created.fd(), DIR_MODE); // mkdirat honours the umask
            owner.apply(created);
        } catch (Errno e) {
            // replaced by the sandbox in the meantime: nothing of ours to fix up
        }
    }
}
