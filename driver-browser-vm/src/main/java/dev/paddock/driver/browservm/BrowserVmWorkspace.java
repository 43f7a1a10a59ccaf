package dev.paddock.driver.browservm;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.FileEntry;
import dev.paddock.core.spi.UnsupportedCapabilityException;
import dev.paddock.core.spi.Workspace;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** The /workspace of a sandbox in a tab: every call is one op over the relay, bounded in time and size. */
final class BrowserVmWorkspace implements Workspace {
    /** Largest file moved in one call (it is held in memory on both sides). */
    static final long MAX_FILE_BYTES = 64L << 20;

    private final BrowserVmSandbox sandbox;

    BrowserVmWorkspace(BrowserVmSandbox sandbox) {
        this.sandbox = sandbox;
    }

    @Override
    public FileEntry stat(String path) {
        return entry(sandbox.call("stat", Map.of("path", GuestPaths.inWorkspace(path)), null, 1 << 16).entry());
    }

    @Override
    public List<FileEntry> list(String path) {
        List<Frames.Entry> entries = sandbox.call("list", Map.of("path", GuestPaths.inWorkspace(path)), null, 1 << 16).entries();
        return entries == null ? List.of() : entries.stream().map(BrowserVmWorkspace::entry).toList();
    }

    @Override
    public InputStream read(String path) {
        Reply r = sandbox.call("read_file", Map.of("path", GuestPaths.inWorkspace(path)), null, MAX_FILE_BYTES);
        return new ByteArrayInputStream(r.data());
    }

    @Override
    public FileEntry write(String path, InputStream content) {
        String p = GuestPaths.inWorkspace(path);
        if (p.equals(ROOT)) throw new PaddockException(ErrorCode.IS_A_DIRECTORY, "/workspace is a directory; name a file under it");
        byte[] bytes = upTo(content, "files");
        return entry(sandbox.call("write_file", Map.of("path", p, "size", bytes.length), bytes, 1 << 16).entry());
    }

    @Override
    public void mkdir(String path) {
        sandbox.call("mkdir", Map.of("path", GuestPaths.inWorkspace(path)), null, 1 << 16);
    }

    @Override
    public void delete(String path, boolean recursive) {
        String p = GuestPaths.inWorkspace(path);
        if (p.equals(ROOT)) throw new PaddockException(ErrorCode.CANNOT_DELETE_WORKSPACE_ROOT, "/workspace itself cannot be deleted; use clear");
        sandbox.call("delete", Map.of("path", p, "recursive", recursive), null, 1 << 16);
    }

    /** A tab cannot; a paired daemon's local workspace writes the archive, which travels back as one op's data. */
    @Override
    public void exportTar(String path, OutputStream out) {
        if (!sandbox.runtime().daemon()) throw new UnsupportedCapabilityException(sandbox.driverId(), "workspace tar export (checkpoints)");
        Reply r = sandbox.call("export_tar", Map.of("path", GuestPaths.inWorkspace(path)), null, MAX_FILE_BYTES);
        try {
            out.write(r.data());
        } catch (IOException e) {
            throw new UncheckedIOException("writing the archive failed", e);
        }
    }

    /** A tab cannot; a paired daemon's local workspace unpacks the archive (and refuses entries that would leave it). */
    @Override
    public void importTar(String path, InputStream tar) {
        if (!sandbox.runtime().daemon()) throw new UnsupportedCapabilityException(sandbox.driverId(), "workspace tar import (checkpoints)");
        byte[] bytes = upTo(tar, "archives");
        sandbox.call("import_tar", Map.of("path", GuestPaths.inWorkspace(path), "size", bytes.length), bytes, 1 << 16);
    }

    private byte[] upTo(InputStream content, String what) {
        byte[] bytes;
        try {
            bytes = content.readNBytes((int) MAX_FILE_BYTES + 1);
        } catch (IOException e) {
            throw new UncheckedIOException("reading the upload failed", e);
        }
        if (bytes.length > MAX_FILE_BYTES) {
            throw new PaddockException(ErrorCode.FILE_TOO_LARGE,
                    "the " + sandbox.driverId() + " driver moves " + what + " of at most " + (MAX_FILE_BYTES >> 20) + " MiB per call");
        }
        return bytes;
    }

    @Override
    public void clear() {
        sandbox.call("clear", Map.of(), null, 1 << 16);
    }

    static FileEntry entry(Frames.Entry e) {
        if (e == null) throw new PaddockException(ErrorCode.SANDBOX_TAB_PROTOCOL, "the sandbox tab answered without a file entry");
        GuestPaths.inWorkspace(e.path());
        FileEntry.Type type = switch (e.type()) {
            case "file" -> FileEntry.Type.FILE;
            case "directory" -> FileEntry.Type.DIRECTORY;
            case "symlink" -> FileEntry.Type.SYMLINK;
            default -> FileEntry.Type.OTHER;
        };
        return new FileEntry(e.path(), e.name(), type, e.size(), e.mode(), Instant.ofEpochSecond(e.mtime()), e.linkTarget());
    }
}
