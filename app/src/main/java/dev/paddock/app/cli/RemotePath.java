package dev.paddock.app.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code sbx_…:/workspace/path}: a path inside a sandbox, as the cp and ls commands take it. */
record RemotePath(String sandboxId, String path) {
    private static final Pattern SHAPE = Pattern.compile("(sbx_[^:/]*):(.*)", Pattern.DOTALL);

    /** Null when {@code arg} does not name a sandbox; a usage error when it does but the id is malformed. */
    static RemotePath parseOrNull(String arg) {
        Matcher m = SHAPE.matcher(arg);
        if (!m.matches()) return null;
        String path = m.group(2).isEmpty() ? "/workspace" : m.group(2);
        return new RemotePath(ClientCommand.sandboxId(m.group(1)), path);
    }

    /** The path with {@code name} appended (for "copy into this directory"). */
    RemotePath child(String name) {
        return new RemotePath(sandboxId, path.endsWith("/") ? path + name : path + "/" + name);
    }

    String name() {
        String p = path;
        while (p.length() > 1 && p.endsWith("/")) p = p.substring(0, p.length() - 1);
        int slash = p.lastIndexOf('/');
        return slash < 0 ? p : p.substring(slash + 1);
    }

    @Override public String toString() { return sandboxId + ":" + path; }
}
