package dev.paddock.app.daemon;

import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.CappedOutputStream;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.ExecHandle;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import dev.paddock.core.spi.TerminationReason;
import dev.paddock.core.spi.Workspace;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The daemon's sandboxes, run with its local driver, and the ops the server sends for them. Every op is checked
 * before it touches anything: the sandbox must be one this daemon runs (bind makes one, up to the capacity), paths
 * go through the local driver's workspace (which confines them to /workspace), and sizes and times are bounded.
 * A refused op answers a failure with a code; nothing the server sends is trusted further than that.
 */
final class LocalSandboxes implements AutoCloseable {
    /** What one command may return (stdout and stderr together), as the server's relay accepts. */
    static final int MAX_OUTPUT_BYTES = 16 << 20;
    /** Largest file moved in one op, as the server's relay moves them. */
    static final long MAX_FILE_BYTES = 64L << 20;
    /** The tenant the local driver records: the daemon serves one server tenant, which the server keeps track of. */
    private static final String LOCAL_TENANT = "paired-daemon";
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");

    /** One op's answer: fields of the result frame and its byte streams (stdout, stderr, data). */
    record Answer(Map<String, Object> fields, Map<String, byte[]> streams) {
        static Answer empty() { return new Answer(Map.of(), Map.of()); }
    }

    /** A refused op, answered with {@code code}. */
    static final class Refused extends RuntimeException {
        final String code;

        Refused(String code, String message) {
            super(message);
            this.code = code;
        }
    }

    private final SandboxDriver driver;
    private final int capacity;
    private final Map<String, Sandbox> sandboxes = new ConcurrentHashMap<>();
    private final Map<String, ExecHandle> running = new ConcurrentHashMap<>();

    LocalSandboxes(SandboxDriver driver, int capacity) {
        this.driver = driver;
        this.capacity = capacity;
    }

    String driverId() { return driver.id(); }

    int capacity() { return capacity; }

    List<String> ids() { return List.copyOf(sandboxes.keySet()); }

    /** Runs one op (not kill, which {@link #kill} handles without an answer). */
    Answer run(ServerFrames.Op op, byte[] data) {
        JsonNode a = op.args();
        try {
            return switch (op.op()) {
                case "bind" -> bind(op.sandboxId(), a);
                case "exec" -> exec(op, data);
                case "stat" -> {
                    only(a, "path");
                    yield new Answer(Map.of("entry", entry(workspace(op).stat(path(a)))), Map.of());
                }
                case "list" -> {
                    only(a, "path");
                    yield new Answer(Map.of("entries", workspace(op).list(path(a)).stream().map(LocalSandboxes::entry).toList()), Map.of());
                }
                case "read_file" -> {
                    only(a, "path");
                    yield new Answer(Map.of(), Map.of("data", read(workspace(op), path(a))));
                }
                case "write_file" -> {
                    only(a, "path", "size", "chunks");
                    byte[] bytes = data == null ? new byte[0] : data;
                    if (number(a, "size", 0, MAX_FILE_BYTES) != bytes.length) throw malformed("size does not match the bytes sent");
                    yield new Answer(Map.of("entry", entry(workspace(op).write(path(a), new ByteArrayInputStream(bytes)))), Map.of());
                }
                case "mkdir" -> {
                    only(a, "path");
                    workspace(op).mkdir(path(a));
                    yield Answer.empty();
                }
                case "delete" -> {
                    only(a, "path", "recursive");
                    JsonNode r = a.get("recursive");
                    if (r == null || !r.isBoolean()) throw malformed("recursive must be true or false");
                    workspace(op).delete(path(a), r.booleanValue());
                    yield Answer.empty();
                }
                case "clear" -> {
                    only(a);
                    workspace(op).clear();
                    yield Answer.empty();
                }
                case "export_tar" -> {
                    only(a, "path");
                    // held in memory up to the size one op may carry; a larger archive is refused, not cut short
                    ByteArrayOutputStream archive = new ByteArrayOutputStream();
                    workspace(op).exportTar(path(a), new CappedOutputStream(archive, MAX_FILE_BYTES, () -> {
                        throw new Refused("file_too_large", "the archive is larger than " + (MAX_FILE_BYTES >> 20) + " MiB, what one op carries");
                    }));
                    yield new Answer(Map.of(), Map.of("data", archive.toByteArray()));
                }
                case "import_tar" -> {
                    only(a, "path", "size", "chunks");
                    byte[] bytes = data == null ? new byte[0] : data;
                    if (number(a, "size", 0, MAX_FILE_BYTES) != bytes.length) throw malformed("size does not match the bytes sent");
                    workspace(op).importTar(path(a), new ByteArrayInputStream(bytes));
                    yield Answer.empty();
                }
                case "destroy" -> {
                    only(a, "reason");
                    destroy(op.sandboxId());
                    yield Answer.empty();
                }
                default -> throw malformed("unknown op");
            };
        } catch (PaddockException e) {
            throw new Refused(e.code(), e.getMessage());
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage());
        }
    }

    /** Kills the command of {@code targetRequestId}, if it still runs. */
    void kill(JsonNode args) {
        JsonNode t = args.get("target_request_id");
        if (t == null || !t.isString()) return;
        ExecHandle h = running.get(t.stringValue());
        if (h != null) h.kill();
    }

    private Answer bind(String sandboxId, JsonNode a) {
        only(a, "fresh", "limits");
        JsonNode fresh = a.get("fresh");
        if (fresh == null || !fresh.isBoolean()) throw malformed("fresh must be true or false");
        if (!fresh.booleanValue()) throw new Refused("sandbox_not_here", "a paired daemon keeps no mirrors of other runtimes' sandboxes");
        synchronized (sandboxes) {
            if (sandboxes.containsKey(sandboxId)) return Answer.empty(); // a bind resent after a reconnect
            if (sandboxes.size() >= capacity) throw new Refused("sandbox_tabs_busy", "this daemon already runs " + capacity + " sandboxes");
            Limits limits = limits(a.get("limits"));
            SandboxSpec spec = new SandboxSpec(sandboxId, LOCAL_TENANT, null, false, limits, Map.of(), NetworkPolicy.NONE);
            sandboxes.put(sandboxId, driver.create(spec, new Fence("paired-daemon", 1)));
        }
        return Answer.empty();
    }

    private static Limits limits(JsonNode l) {
        if (l == null || l.isNull()) return Limits.DEFAULT;
        if (!l.isObject()) throw malformed("limits must be an object");
        only(l, "memory_bytes", "pids", "cpus", "disk_bytes");
        long memory = number(l, "memory_bytes", 16L << 20, 1L << 40);
        long pids = number(l, "pids", 8, 1 << 22);
        JsonNode cpus = l.get("cpus");
        if (cpus == null || !cpus.isNumber() || !(cpus.doubleValue() > 0) || cpus.doubleValue() > 1024) throw malformed("limits.cpus must be a number above 0");
        if (number(l, "disk_bytes", 0, Long.MAX_VALUE) != 0) throw new Refused("disk_quota_unavailable", "a paired daemon takes no disk limit");
        return new Limits(memory, (int) pids, cpus.doubleValue());
    }

    private Answer exec(ServerFrames.Op op, byte[] stdin) {
        JsonNode a = op.args();
        only(a, "argv", "env", "cwd", "chunks");
        Sandbox s = sandbox(op.sandboxId());
        JsonNode argvNode = a.get("argv");
        if (argvNode == null || !argvNode.isArray() || argvNode.isEmpty() || argvNode.size() > 4096) throw malformed("argv must be a non-empty array of strings");
        List<String> argv = new ArrayList<>();
        for (JsonNode x : argvNode) {
            if (!x.isString()) throw malformed("argv must be a non-empty array of strings");
            argv.add(x.stringValue());
        }
        Map<String, String> env = new LinkedHashMap<>();
        JsonNode e = a.get("env");
        if (e != null && !e.isNull()) {
            if (!e.isObject()) throw malformed("env must be an object");
            for (Map.Entry<String, JsonNode> kv : e.properties()) {
                if (!ENV_NAME.matcher(kv.getKey()).matches() || !kv.getValue().isString()) {
                    throw new Refused("invalid_env", "env names are identifiers and values are strings");
                }
                env.put(kv.getKey(), kv.getValue().stringValue());
            }
        }
        String cwd = path(a, "cwd");
        // the local sandbox sees /workspace as the server does: the cwd must stay in it
        if (!cwd.equals(Workspace.ROOT) && !cwd.startsWith(Workspace.ROOT + "/") || cwd.contains("/../") || cwd.endsWith("/..")) {
            throw new Refused("path_outside_workspace", "cwd must be under /workspace");
        }
        BoundedBuffer out = new BoundedBuffer(MAX_OUTPUT_BYTES / 2);
        BoundedBuffer err = new BoundedBuffer(MAX_OUTPUT_BYTES / 2);
        ExecRequest request = new ExecRequest(argv, env, cwd, Duration.ofSeconds(op.timeoutSeconds()), stdin);
        ExecHandle h = s.exec(request, ExecOutput.into(out, err));
        running.put(op.requestId(), h);
        try {
            ExecResult r = h.await();
            int exit = r.signal() > 0 ? 128 + r.signal() : Math.max(0, Math.min(255, r.exitCode()));
            return new Answer(Map.of("exit_code", exit), mapOf("stdout", out.bytes(), "stderr", err.bytes()));
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
            h.kill();
            throw new Refused("interrupted", "the daemon is stopping");
        } finally {
            running.remove(op.requestId());
        }
    }

    private static Map<String, byte[]> mapOf(String k1, byte[] v1, String k2, byte[] v2) {
        Map<String, byte[]> m = new LinkedHashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }

    private static byte[] read(Workspace w, String path) {
        try (InputStream in = w.read(path)) {
            byte[] bytes = in.readNBytes((int) MAX_FILE_BYTES + 1);
            if (bytes.length > MAX_FILE_BYTES) throw new Refused("file_too_large", "a paired daemon moves files of at most " + (MAX_FILE_BYTES >> 20) + " MiB per op");
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Sandbox sandbox(String id) {
        Sandbox s = sandboxes.get(id);
        if (s == null) throw new Refused("sandbox_not_here", "this daemon does not run sandbox " + id);
        return s;
    }

    private Workspace workspace(ServerFrames.Op op) {
        return sandbox(op.sandboxId()).workspace();
    }

    private void destroy(String id) {
        Sandbox s = sandboxes.remove(id);
        if (s == null) return;
        var ref = s.ref();
        try {
            s.terminate(TerminationReason.USER_REQUEST);
        } finally {
            driver.purge(ref);
        }
    }

    /** The paths the server sends are absolute under /workspace; the workspace itself refuses any way out. */
    private static String path(JsonNode a) {
        return path(a, "path");
    }

    private static String path(JsonNode a, String field) {
        JsonNode p = a.get(field);
        if (p == null || !p.isString() || p.stringValue().length() > 4096 || !p.stringValue().startsWith("/") || p.stringValue().indexOf('\0') >= 0) {
            throw malformed(field + " must be an absolute path");
        }
        return p.stringValue();
    }

    private static long number(JsonNode a, String field, long min, long max) {
        JsonNode n = a.get(field);
        if (n == null || !n.isIntegralNumber() || !n.canConvertToLong() || n.longValue() < min || n.longValue() > max) {
            throw malformed(field + " must be an integer between " + min + " and " + max);
        }
        return n.longValue();
    }

    private static void only(JsonNode a, String... allowed) {
        List<String> ok = List.of(allowed);
        for (String name : a.propertyNames()) {
            if (!ok.contains(name)) throw malformed("unknown argument '" + name + "'");
        }
    }

    private static Refused malformed(String message) {
        return new Refused("malformed_op", message);
    }

    static Map<String, Object> entry(FileEntry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", e.path());
        m.put("name", e.name());
        m.put("type", switch (e.type()) {
            case FILE -> "file";
            case DIRECTORY -> "directory";
            case SYMLINK -> "symlink";
            case OTHER -> "other";
        });
        m.put("size", Math.max(0, e.size()));
        m.put("mode", e.mode() & 07777);
        m.put("mtime", e.modifiedAt() == null ? 0 : Math.max(0, e.modifiedAt().getEpochSecond()));
        if (e.linkTarget() != null) m.put("link_target", e.linkTarget());
        return m;
    }

    /** Ends every sandbox this daemon runs: they cannot outlive it (a new daemon pairs as a new runtime). */
    @Override
    public void close() {
        running.values().forEach(ExecHandle::kill);
        for (String id : ids()) {
            try {
                destroy(id);
            } catch (RuntimeException e) {
                // stopping: the next start reaps what is left
            }
        }
    }

    /** Reaps sandboxes a previous daemon with this data directory left behind (killed before it could end them). */
    void reapLeftovers() {
        driver.list().forEach(ref -> {
            driver.destroy(ref);
            driver.purge(ref);
        });
    }
}
