package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.PaddockClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/**
 * {@code paddock sandbox cp SRC DST}: copies a file or a directory between this machine and a sandbox, one side
 * written {@code sbx_…:/workspace/path}. Like {@code cp -r}: a destination that is an existing directory receives
 * the source under its own name.
 */
@Command(name = "cp", description = "Copy files or directories: `cp ./dir sbx_…:/workspace/dir` or `cp sbx_…:/workspace/out.txt .`")
public final class SandboxCopyCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "SRC")
    String source;

    @Parameters(index = "1", paramLabel = "DST")
    String destination;

    @Override
    public Integer call() throws IOException {
        RemotePath from = RemotePath.parseOrNull(source);
        RemotePath to = RemotePath.parseOrNull(destination);
        if ((from == null) == (to == null)) {
            throw CliException.usage("exactly one side must be in a sandbox, written like sbx_…:/workspace/path");
        }
        String summary = from == null ? upload(Path.of(source), to) : download(from, Path.of(destination));
        if (json()) printJson(Json.object().put("copied", summary));
        else ctx.err().println(summary);
        return 0;
    }

    private String upload(Path local, RemotePath dst) throws IOException {
        if (!Files.exists(local, LinkOption.NOFOLLOW_LINKS)) throw CliException.usage("no such file or directory: " + local);
        JsonNode existing = stat(dst);
        RemotePath target = dst;
        boolean intoDir = existing != null && "directory".equals(text(existing, "type"));
        if (intoDir || (existing == null && dst.path().endsWith("/"))) target = dst.child(local.toAbsolutePath().normalize().getFileName().toString());
        if (Files.isDirectory(local)) {
            if (!intoDir && existing != null) throw new CliException(dst + " exists and is not a directory");
            Path tar = Files.createTempFile("paddock-cp-", ".tar");
            try {
                try (OutputStream out = Files.newOutputStream(tar)) {
                    LocalTar.pack(local, out);
                }
                if (stat(target) == null) client().call("POST", filesPath(target, "mkdir"), Map.of("path", target.path()), null);
                client().upload("PUT", filesPath(target, "archive"), Map.of("path", target.path()), () -> open(tar));
            } finally {
                Files.deleteIfExists(tar);
            }
        } else if (Files.isRegularFile(local)) {
            client().upload("PUT", filesPath(target, "content"), Map.of("path", target.path()), () -> open(local));
        } else {
            throw CliException.usage(local + " is neither a regular file nor a directory");
        }
        return "copied " + local + " to " + target;
    }

    private String download(RemotePath src, Path local) throws IOException {
        JsonNode entry = stat(src);
        if (entry == null) throw new CliException("no such file or directory in the sandbox: " + src);
        String type = text(entry, "type");
        Path target = Files.isDirectory(local) ? local.resolve(safeName(src.name())) : local;
        if ("directory".equals(type)) {
            if (Files.exists(target) && !Files.isDirectory(target)) throw new CliException(target + " exists and is not a directory");
            int skipped;
            try (InputStream in = client().download(filesPath(src, "archive"), Map.of("path", src.path()))) {
                skipped = LocalTar.unpack(in, target);
            }
            if (skipped > 0) ctx.err().println("paddock: skipped " + skipped + " links or special files (only files and directories are copied out)");
        } else if ("file".equals(type)) {
            Path parent = target.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            // as a one-file archive, so a sparse file keeps its holes; unpacked beside the target, then moved over it
            Path staging = Files.createTempDirectory(parent, ".paddock-cp-");
            try (InputStream in = client().download(filesPath(src, "archive"), Map.of("path", src.path()))) {
                LocalTar.unpack(in, staging);
                Path got;
                try (var files = Files.list(staging)) {
                    got = files.findFirst().orElseThrow(() -> new CliException("the sandbox sent no file for " + src));
                }
                Files.move(got, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                try (var left = Files.list(staging)) {
                    for (Path p : left.toList()) Files.deleteIfExists(p);
                }
                Files.deleteIfExists(staging);
            }
        } else {
            throw new CliException(src + " is a " + type + "; only files and directories can be copied out");
        }
        return "copied " + src + " to " + target;
    }

    /** The entry, or null when it does not exist. */
    private JsonNode stat(RemotePath p) {
        try {
            JsonNode entry = Fields.object(client().call("GET", filesPath(p, "stat"), Map.of("path", p.path()), null));
            Fields.string(entry, "type"); // a string when there, or the answer is refused
            return entry;
        } catch (ApiException e) {
            if (e.status() == 404) return null;
            throw e;
        }
    }

    private static String filesPath(RemotePath p, String op) {
        return path("sandboxes", p.sandboxId(), "files", op);
    }

    /** A name from the sandbox used as a local file name: no separators, no dot-dot. */
    private static String safeName(String name) {
        if (name.isEmpty() || name.equals(".") || name.equals("..") || name.contains("/") || name.contains("\0")) {
            return "workspace";
        }
        return name;
    }

    private static InputStream open(Path p) {
        try {
            return Files.newInputStream(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
