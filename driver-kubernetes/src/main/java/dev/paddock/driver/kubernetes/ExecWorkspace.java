package dev.paddock.driver.kubernetes;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.Workspace;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A sandbox pod's {@code /workspace} (or outputs) reached through the exec API: each operation is one short shell
 * script run in the sandbox container as the sandbox's own uid, so it can reach nothing that the sandbox's
 * commands cannot. Paths are checked twice: lexically here ({@link PodPaths}) and after resolving symlinks in the pod
 * ({@code realpath}), so a link pointing out of the root is refused. Content crosses as the bytes of a stored file
 * of known length (the exec API cannot send end-of-file), spooled to a temporary file on the server.
 */
final class ExecWorkspace implements Workspace {
    /** $1 = root, $2 = path; sets r (the path with its parent's symlinks resolved) and f (fully resolved). */
    private static final String PRELUDE = "R=$1; p=$2; shift 2; inside() { case \"$1\" in \"$R\"|\"$R\"/*) return 0;; esac; return 1; }; "
            + "if [ \"$p\" = \"$R\" ]; then r=$R; else q=$(realpath -m -- \"${p%/*}\") || exit 95; r=$q/${p##*/}; fi; "
            + "inside \"$r\" || exit 90; f=$(realpath -m -- \"$r\") || exit 95; ";
    private static final String ENTRY = "-printf '%y\\0%s\\0%m\\0%T@\\0%f\\0%l\\0'";
    private static final String STAT = "[ -e \"$r\" ] || [ -L \"$r\" ] || exit 91; exec find \"$r\" -maxdepth 0 " + ENTRY;
    private static final String LIST = "inside \"$f\" || exit 90; [ -e \"$f\" ] || exit 91; [ -d \"$f\" ] || exit 93; exec find \"$f\" -mindepth 1 -maxdepth 1 " + ENTRY;
    private static final String READ = "inside \"$f\" || exit 90; [ -e \"$f\" ] || exit 91; [ -d \"$f\" ] && exit 92; [ -f \"$f\" ] || exit 94; exec cat -- \"$f\"";
    private static final String WRITE = "inside \"$f\" || exit 90; [ -d \"$f\" ] && exit 92; mkdir -p -- \"${r%/*}\" 2>/dev/null || exit 93; t=${r%/*}/.paddock-upload-$$; "
            + "head -c \"$1\" > \"$t\" && mv -f -- \"$t\" \"$r\" || { rm -f -- \"$t\"; exit 95; }";
    private static final String MKDIR = "inside \"$f\" || exit 90; mkdir -p -- \"$f\" 2>/dev/null || exit 93";
    private static final String DELETE = "[ \"$r\" = \"$R\" ] && exit 96; [ -e \"$r\" ] || [ -L \"$r\" ] || exit 91; "
            + "if [ -d \"$r\" ] && [ ! -L \"$r\" ]; then if [ \"$1\" = 1 ]; then rm -rf -- \"$r\"; else rmdir -- \"$r\" 2>/dev/null || exit 97; fi; else rm -f -- \"$r\"; fi";
    private static final String EXPORT = "inside \"$f\" || exit 90; [ -e \"$f\" ] || exit 91; [ -d \"$f\" ] || exit 93; exec tar -C \"$f\" -cf - .";
    private static final String IMPORT = "inside \"$f\" || exit 90; mkdir -p -- \"$f\" 2>/dev/null || exit 93; head -c \"$1\" | tar -x --no-same-owner -C \"$f\"";
    private static final String CLEAR = "exec find \"$1\" -mindepth 1 -delete";

    private final PodExec exec;
    private final String root;

    ExecWorkspace(PodExec exec, String root) {
        this.exec = exec;
        this.root = root;
    }

    @Override
    public FileEntry stat(String path) {
        String p = PodPaths.resolve(root, path);
        List<FileEntry> entries = entries(root, check(run(STAT, p, null), p).stdout());
        if (entries.size() != 1) throw PaddockException.internal("stat of " + p + " answered " + entries.size() + " entries", null);
        FileEntry e = entries.getFirst();
        return new FileEntry(p, p.equals(root) ? "" : e.name(), e.type(), e.size(), e.mode(), e.modifiedAt(), e.linkTarget());
    }

    @Override
    public List<FileEntry> list(String path) {
        String p = PodPaths.resolve(root, path);
        return entries(p, check(run(LIST, p, null), p).stdout());
    }

    @Override
    public InputStream read(String path) {
        String p = PodPaths.resolve(root, path);
        Path spool = tempFile();
        try (OutputStream out = Files.newOutputStream(spool)) {
            check(exec.stream(args(READ, p), null, out), p);
        } catch (IOException e) {
            delete(spool);
            throw io("read " + p, e);
        } catch (RuntimeException e) {
            delete(spool);
            throw e;
        }
        return deletingOnClose(spool);
    }

    @Override
    public FileEntry write(String path, InputStream content) {
        String p = PodPaths.resolve(root, path);
        if (p.equals(root)) throw new PaddockException(ErrorCode.IS_A_DIRECTORY, p + " is a directory");
        withSpooled(content, (spool, size) -> check(run(WRITE, p, spool, Long.toString(size)), p));
        return stat(p);
    }

    @Override
    public void mkdir(String path) {
        String p = PodPaths.resolve(root, path);
        check(run(MKDIR, p, null), p);
    }

    @Override
    public void delete(String path, boolean recursive) {
        String p = PodPaths.resolve(root, path);
        check(run(DELETE, p, null, recursive ? "1" : "0"), p);
    }

    @Override
    public void exportTar(String path, OutputStream out) {
        String p = PodPaths.resolve(root, path);
        check(exec.stream(args(EXPORT, p), null, out), p);
    }

    @Override
    public void importTar(String path, InputStream tar) {
        String p = PodPaths.resolve(root, path);
        withSpooled(tar, (spool, size) -> check(run(IMPORT, p, spool, Long.toString(size)), p));
    }

    @Override
    public void clear() {
        check(exec.run(List.of("/bin/sh", "-c", CLEAR, "clear", root), null), root);
    }

    private PodExec.Result run(String script, String path, Path stdin, String... extra) {
        List<String> argv = args(script, path, extra);
        if (stdin == null) return exec.run(argv, null);
        try (InputStream in = Files.newInputStream(stdin)) {
            return exec.run(argv, in);
        } catch (IOException e) {
            throw io("send " + path, e);
        }
    }

    private List<String> args(String script, String path, String... extra) {
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", PRELUDE + script, "paddock-files", root, path));
        argv.addAll(List.of(extra));
        return argv;
    }

    private PodExec.Result check(PodExec.Result r, String path) {
        return switch (r.exitCode()) {
            case 0 -> r;
            case 90 -> throw new PaddockException(ErrorCode.PATH_OUTSIDE_WORKSPACE, "path " + path + " resolves outside " + root);
            case 91 -> throw new PaddockException(ErrorCode.FILE_NOT_FOUND, "no file or directory at " + path);
            case 92 -> throw new PaddockException(ErrorCode.IS_A_DIRECTORY, path + " is a directory");
            case 93 -> throw new PaddockException(ErrorCode.NOT_A_DIRECTORY, "a component of " + path + " is not a directory");
            case 94 -> throw new PaddockException(ErrorCode.NOT_A_REGULAR_FILE, path + " is not a regular file");
            case 96 -> throw new PaddockException(ErrorCode.CANNOT_DELETE_WORKSPACE_ROOT, "cannot delete " + root + " itself; delete what is inside it");
            case 97 -> throw new PaddockException(ErrorCode.DIRECTORY_NOT_EMPTY, path + " is a directory that is not empty; delete it recursively");
            default -> throw new PaddockException(ErrorCode.WORKSPACE_IO_ERROR, "file operation on " + path + " failed in the pod (exit "
                    + r.exitCode() + (r.stderr() == null || r.stderr().isEmpty() ? "" : ": " + r.stderr()) + ")");
        };
    }

    /** Six NUL-terminated fields per entry, as {@link #ENTRY} prints them. */
    private List<FileEntry> entries(String dir, byte[] out) {
        String[] f = new String(out, StandardCharsets.UTF_8).split("\0", -1);
        List<FileEntry> entries = new ArrayList<>();
        for (int i = 0; i + 6 <= f.length; i += 6) {
            FileEntry.Type type = switch (f[i]) {
                case "f" -> FileEntry.Type.FILE;
                case "d" -> FileEntry.Type.DIRECTORY;
                case "l" -> FileEntry.Type.SYMLINK;
                default -> FileEntry.Type.OTHER;
            };
            String name = f[i + 4];
            BigDecimal seconds = new BigDecimal(f[i + 3]);
            Instant modified = Instant.ofEpochSecond(seconds.longValue(), seconds.remainder(BigDecimal.ONE).movePointRight(9).longValue());
            entries.add(new FileEntry(dir + "/" + name, name, type, Long.parseLong(f[i + 1]), Integer.parseInt(f[i + 2], 8), modified,
                    type == FileEntry.Type.SYMLINK ? f[i + 5] : null));
        }
        return entries;
    }

    @FunctionalInterface
    private interface SpoolUse {
        void accept(Path spool, long size);
    }

    private static void withSpooled(InputStream content, SpoolUse use) {
        Path spool = tempFile();
        try {
            long size;
            try (OutputStream out = Files.newOutputStream(spool)) {
                size = content.transferTo(out);
            }
            use.accept(spool, size);
        } catch (IOException e) {
            throw io("spool the content", e);
        } finally {
            delete(spool);
        }
    }

    private static Path tempFile() {
        try {
            return Files.createTempFile("paddock-k8s-", ".spool");
        } catch (IOException e) {
            throw io("create a temporary file", e);
        }
    }

    private static InputStream deletingOnClose(Path spool) {
        try {
            return new FilterInputStream(Files.newInputStream(spool)) {
                @Override
                public void close() throws IOException {
                    try {
                        super.close();
                    } finally {
                        delete(spool);
                    }
                }
            };
        } catch (IOException e) {
            delete(spool);
            throw io("open the spooled file", e);
        }
    }

    private static void delete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PaddockException io(String what, IOException e) {
        return new PaddockException(ErrorCode.WORKSPACE_IO_ERROR, "cannot " + what + ": " + e.getMessage(), e);
    }
}
