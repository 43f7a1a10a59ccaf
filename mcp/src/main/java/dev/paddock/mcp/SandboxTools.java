package dev.paddock.mcp;

import static dev.paddock.toolset.Schemas.object;
import static dev.paddock.toolset.Schemas.props;
import static dev.paddock.toolset.Schemas.type;

import dev.paddock.access.Principal;
import dev.paddock.core.BoundedBuffer;
import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.FileChange;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.FileWatch;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.spec.McpSchema.CallToolResult;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The sandbox tools: create_sandbox, list_sandboxes, delete_sandbox, exec, read_file, write_file, list_files, watch_files. Each
 * acts for the caller's tenant through {@link RuntimeHost}, so another tenant's sandbox is reported as not found.
 */
final class SandboxTools {
    static final int MAX_OUTPUT_BYTES = 100 * 1024;
    static final int MAX_FILE_BYTES = 1024 * 1024;
    static final int MAX_WATCH_SECONDS = 60;
    private static final Map<String, Object> SANDBOX_ID = type("string", "Sandbox id, e.g. sbx_…");
    private static final Map<String, Object> ENCODING = Map.of("type", "string", "enum", List.of("utf-8", "base64"),
            "description", "utf-8 (default) for text, base64 for binary");

    private final RuntimeHost host;

    SandboxTools(RuntimeHost host) {
        this.host = host;
    }

    List<SyncToolSpecification> specifications() {
        return List.of(
                McpTools.tool("create_sandbox", "Create a new sandbox (an isolated Linux environment with a /workspace directory). Returns its id.",
                        object(props("driver", type("string", "Isolation driver; the server's default when absent"),
                                "image", type("string", "Root filesystem image; the host system when absent"),
                                "timeout_seconds", type("integer", "Lifetime in seconds; the server's default when absent"),
                                "env", Map.of("type", "object", "additionalProperties", Map.of("type", "string"),
                                        "description", "Environment variables for commands")), List.of()),
                        (caller, args) -> {
                            args.allowOnly(Set.of("driver", "image", "timeout_seconds", "env"));
                            Long seconds = args.optionalInteger("timeout_seconds", 1, Duration.ofDays(365).toSeconds());
                            SandboxRequest req = new SandboxRequest(args.optionalString("driver"), args.optionalString("image"), false,
                                    null, args.optionalStringMap("env"), null, seconds == null ? null : Duration.ofSeconds(seconds), null, null);
                            return McpTools.json(view(host.create(caller, req)));
                        }),
                McpTools.tool("list_sandboxes", "List this API key's sandboxes, newest first.",
                        object(props("include_ended", type("boolean", "Also list terminated and failed sandboxes"),
                                "limit", type("integer", "At most this many (1-100, default 50)"),
                                "after_id", type("string", "Continue after this sandbox id (from the previous page's last_id)")), List.of()),
                        (caller, args) -> {
                            args.allowOnly(Set.of("include_ended", "limit", "after_id"));
                            Long limit = args.optionalInteger("limit", 1, 100);
                            Page<SandboxRecord> page = host.list(caller, new PageRequest(limit == null ? 50 : limit.intValue(),
                                    args.optionalString("after_id"), null), args.optionalBoolean("include_ended"));
                            Map<String, Object> out = new LinkedHashMap<>();
                            out.put("data", page.data().stream().map(SandboxTools::view).toList());
                            out.put("has_more", page.hasMore());
                            out.put("last_id", page.lastId());
                            return McpTools.json(out);
                        }),
                McpTools.tool("delete_sandbox", "Terminate a sandbox and its processes. Its workspace stays readable where the driver "
                                + "keeps it, unless purge; a browser sandbox's files are removed unless purge is false.",
                        object(props("sandbox_id", SANDBOX_ID, "purge", type("boolean", "Also remove its workspace and outputs from the host")),
                                List.of("sandbox_id")),
                        (caller, args) -> {
                            args.allowOnly(Set.of("sandbox_id", "purge"));
                            String id = args.requiredString("sandbox_id");
                            Boolean purge = args.optionalFlag("purge");
                            return McpTools.json(view(host.delete(caller, id, purge)));
                        }),
                McpTools.tool("exec", "Run a command in a sandbox and wait for it: either command (a shell line for /bin/sh -c) or argv. "
                                + "Returns exit_code, stdout, stderr (each cut at " + MAX_OUTPUT_BYTES / 1024 + " KiB) and timed_out.",
                        object(props("sandbox_id", SANDBOX_ID,
                                "command", type("string", "Shell command line"),
                                "argv", Map.of("type", "array", "items", Map.of("type", "string"), "description", "Program and arguments, run without a shell"),
                                "cwd", type("string", "Working directory inside the sandbox (default /workspace)"),
                                "stdin", type("string", "Text written to the command's standard input"),
                                "timeout_seconds", type("integer", "Kill the command after this many seconds (default 600, at most 3600)")),
                                List.of("sandbox_id")),
                        (caller, args) -> exec(caller, args)),
                McpTools.tool("read_file", "Read a file of a sandbox's /workspace (at most " + MAX_FILE_BYTES / 1024 + " KiB).",
                        object(props("sandbox_id", SANDBOX_ID, "path", type("string", "Path under /workspace, absolute or relative"),
                                "encoding", ENCODING), List.of("sandbox_id", "path")),
                        (caller, args) -> readFile(caller, args)),
                McpTools.tool("write_file", "Create or replace a file under a sandbox's /workspace (parent directories are created).",
                        object(props("sandbox_id", SANDBOX_ID, "path", type("string", "Path under /workspace, absolute or relative"),
                                "content", type("string", "File contents (text, or base64 with encoding base64)"),
                                "encoding", ENCODING), List.of("sandbox_id", "path", "content")),
                        (caller, args) -> writeFile(caller, args)),
                McpTools.tool("list_files", "List a directory of a sandbox's /workspace.",
                        object(props("sandbox_id", SANDBOX_ID, "path", type("string", "Directory under /workspace (default /workspace)")),
                                List.of("sandbox_id")),
                        (caller, args) -> {
                            args.allowOnly(Set.of("sandbox_id", "path"));
                            String path = args.optionalString("path");
                            List<FileEntry> entries = host.workspace(caller, args.requiredString("sandbox_id"))
                                    .list(path == null || path.isEmpty() ? "/workspace" : path);
                            return McpTools.json(entries.stream().map(SandboxTools::view).toList());
                        }),
                McpTools.tool("watch_files", "Wait for changes under a directory of a sandbox's /workspace and return them: "
                                + "[{type: created|modified|deleted|overflow, path}], empty when none came within timeout_seconds. "
                                + "Only changes made during the call are seen.",
                        object(props("sandbox_id", SANDBOX_ID, "path", type("string", "Directory under /workspace (default /workspace)"),
                                "recursive", type("boolean", "Also its subdirectories (default true)"),
                                "timeout_seconds", type("integer", "How long to wait for the first change (default 10, at most " + MAX_WATCH_SECONDS + ")")),
                                List.of("sandbox_id")),
                        (caller, args) -> watchFiles(caller, args)));
    }

    private CallToolResult watchFiles(Principal caller, McpArgs args) {
        args.allowOnly(Set.of("sandbox_id", "path", "recursive", "timeout_seconds"));
        String path = args.optionalString("path");
        Boolean recursive = args.optionalFlag("recursive");
        Long seconds = args.optionalInteger("timeout_seconds", 1, MAX_WATCH_SECONDS);
        long deadline = System.nanoTime() + Duration.ofSeconds(seconds == null ? 10 : seconds).toNanos();
        List<Map<String, Object>> changes = new ArrayList<>();
        try (FileWatch watch = host.watch(caller, args.requiredString("sandbox_id"), path == null || path.isEmpty() ? "/workspace" : path,
                recursive == null || recursive)) {
            while (changes.isEmpty() && !watch.ended()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) break;
                for (FileChange c : watch.next(Duration.ofNanos(Math.min(left, Duration.ofSeconds(1).toNanos())))) {
                    changes.add(Map.of("type", c.kind().wireName(), "path", c.path()));
                }
            }
        }
        return McpTools.json(changes);
    }

    private CallToolResult exec(Principal caller, McpArgs args) {
        args.allowOnly(Set.of("sandbox_id", "command", "argv", "cwd", "stdin", "timeout_seconds"));
        String id = args.requiredString("sandbox_id");
        String command = args.optionalString("command");
        List<String> argv = args.optionalStringList("argv");
        if ((command == null) == (argv == null)) throw args.fail("give either command (a shell line) or argv (an array), not both or neither");
        if (argv != null && argv.isEmpty()) throw args.fail("argv must name a program");
        if (command != null && command.isBlank()) throw args.fail("command must not be empty");
        Long seconds = args.optionalInteger("timeout_seconds", 1, 3600);
        String stdin = args.optionalString("stdin");
        ExecRequest req = new ExecRequest(argv != null ? argv : List.of("/bin/sh", "-c", command), Map.of(),
                args.optionalString("cwd"), seconds == null ? null : Duration.ofSeconds(seconds),
                stdin == null ? null : stdin.getBytes(StandardCharsets.UTF_8));
        BoundedBuffer out = new BoundedBuffer(MAX_OUTPUT_BYTES, false);
        BoundedBuffer err = new BoundedBuffer(MAX_OUTPUT_BYTES, false);
        ExecResult r = host.run(caller, id, req, ExecOutput.into(out, err));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("exit_code", r.exitCode());
        result.put("stdout", out.text());
        result.put("stderr", err.text());
        result.put("timed_out", r.timedOut());
        if (out.truncated() || err.truncated()) result.put("truncated", true);
        return McpTools.json(result);
    }

    private CallToolResult readFile(Principal caller, McpArgs args) {
        args.allowOnly(Set.of("sandbox_id", "path", "encoding"));
        String id = args.requiredString("sandbox_id");
        String path = args.requiredString("path");
        boolean base64 = base64(args);
        byte[] bytes;
        try (InputStream in = host.workspace(caller, id).read(path)) {
            bytes = in.readNBytes(MAX_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (bytes.length > MAX_FILE_BYTES) {
            throw args.fail("the file is larger than " + MAX_FILE_BYTES + " bytes; use the read tool with view_range, or exec");
        }
        return McpTools.text(base64 ? Base64.getEncoder().encodeToString(bytes) : new String(bytes, StandardCharsets.UTF_8));
    }

    private CallToolResult writeFile(Principal caller, McpArgs args) {
        args.allowOnly(Set.of("sandbox_id", "path", "content", "encoding"));
        String id = args.requiredString("sandbox_id");
        String path = args.requiredString("path");
        String raw = args.optionalString("content");
        if (raw == null) throw args.fail("content is required (a string)");
        byte[] bytes;
        if (base64(args)) {
            try {
                bytes = Base64.getDecoder().decode(raw);
            } catch (IllegalArgumentException e) {
                throw args.fail("content is not valid base64");
            }
        } else {
            bytes = raw.getBytes(StandardCharsets.UTF_8);
        }
        if (bytes.length > 16 * MAX_FILE_BYTES) throw args.fail("content is larger than " + 16 * MAX_FILE_BYTES + " bytes; upload it over the REST API");
        FileEntry written = host.workspace(caller, id).write(path, new ByteArrayInputStream(bytes));
        return McpTools.json(view(written));
    }

    private static boolean base64(McpArgs args) {
        String enc = args.optionalString("encoding");
        if (enc == null || enc.equals("utf-8")) return false;
        if (enc.equals("base64")) return true;
        throw args.fail("encoding must be utf-8 or base64");
    }

    static Map<String, Object> view(SandboxRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", r.id());
        m.put("state", r.state().wireName());
        m.put("driver", r.driver());
        if (r.spec().template() != null) m.put("template", r.spec().template());
        m.put("created_at", r.createdAt().toString());
        m.put("expires_at", r.expiresAt() == null ? null : r.expiresAt().toString());
        if (r.stateReason() != null) m.put("state_reason", r.stateReason());
        return m;
    }

    static Map<String, Object> view(FileEntry e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("path", e.path());
        m.put("name", e.name());
        m.put("type", e.type().name().toLowerCase());
        m.put("size", e.size());
        m.put("modified_at", e.modifiedAt() == null ? null : e.modifiedAt().toString());
        if (e.linkTarget() != null) m.put("link_target", e.linkTarget());
        return m;
    }

}
