package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.host.RuntimeHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The Files API: a tenant's uploaded files, kept as {@code <data-dir>/files/<tenant>/<file_id>} (0600, written as
 * {@code .partial} and renamed when complete) with their metadata as a {@code file} resource row. Their bytes count
 * against the tenant's {@code tenant_storage_quota} together with its checkpoints, in both directions.
 */
public final class FileService {
    static final String PREFIX = "file";
    private static final int MAX_IDS = 100;
    private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final ResourceStore store;
    private final RuntimeHost host;
    private final Path root;
    private final Clock clock;

    FileService(ResourceStore store, RuntimeHost host, Clock clock) {
        this.store = store;
        this.host = host;
        this.root = host.config().dataDir().resolve("files");
        this.clock = clock;
        host.countStoredBytes(this::bytesOf);
    }

    /** Stores the upload; past what the tenant's storage quota leaves it fails with {@code storage_quota_exceeded}. */
    public StoredFile upload(Principal p, String submittedName, String submittedType, InputStream content) {
        Callers.requireApiKey(p, "upload files");
        String filename = FileNames.filename(submittedName);
        String mimeType = FileNames.mimeType(submittedType);
        Instant now = clock.instant();
        String id = Ids.newId(PREFIX, now);
        Path blob = blob(p.tenantId(), id);
        Path partial = blob.resolveSibling(id + ".partial");
        long quota = host.config().tenantStorageBytes();
        long left = quota > 0 ? quota - host.storedBytes(p.tenantId()) : Long.MAX_VALUE;
        if (left <= 0) throw quotaExceeded(quota);
        long size;
        try {
            Files.createDirectories(blob.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            try (OutputStream out = Files.newOutputStream(Files.createFile(partial,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))))) {
                size = copy(content, out, left);
            }
            if (size < 0) {
                Files.deleteIfExists(partial);
                throw quotaExceeded(quota);
            }
            move(partial, blob);
        } catch (IOException e) {
            deleteQuietly(partial);
            throw new UncheckedIOException("cannot store the upload", e);
        } catch (RuntimeException e) {
            deleteQuietly(partial);
            throw e;
        }
        StoredFile file = new StoredFile(id, filename, mimeType, size, Times.iso(now));
        try {
            store.insert(new Resource(StoredFile.KIND, id, p.tenantId(), null, null, null, null, null, 0, 0, now, now, null, file.toWire()));
        } catch (RuntimeException e) {
            deleteQuietly(blob);
            throw e;
        }
        return file;
    }

    public StoredFile get(Principal p, String id) {
        return StoredFile.of(row(p, id));
    }

    /** The file's bytes; the caller closes the stream. */
    public InputStream content(Principal p, String id) {
        StoredFile file = get(p, id);
        try {
            return Files.newInputStream(blob(p.tenantId(), file.id()));
        } catch (NoSuchFileException e) {
            throw PaddockException.notFound("file", id);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read file " + id, e);
        }
    }

    /** Newest first, like the SDKs' list; {@code ids} (at most 100) answers those files in one page instead. */
    public ListResult list(Principal p, PageRequest page, List<String> ids) {
        Callers.requireApiKey(p, "list files");
        if (!ids.isEmpty()) {
            LinkedHashSet<String> wanted = new LinkedHashSet<>(ids);
            if (wanted.size() > MAX_IDS) throw new PaddockException(ErrorCode.INVALID_PARAMETER, "ids must name at most " + MAX_IDS + " files");
            List<Map<String, Object>> found = new ArrayList<>();
            for (String id : wanted) {
                if (ResourceIds.isPlausible(PREFIX, id)) store.find(StoredFile.KIND, p.tenantId(), id).ifPresent(r -> found.add(StoredFile.of(r).toWire()));
            }
            String first = found.isEmpty() ? null : (String) found.getFirst().get("id");
            String last = found.isEmpty() ? null : (String) found.getLast().get("id");
            return new ListResult(found, null, null, false, first, last);
        }
        Page<Resource> rows = store.list(StoredFile.KIND, p.tenantId(), ResourceFilter.newestFirst(false), page);
        return ListResult.of(rows.map(r -> StoredFile.of(r).toWire()), page);
    }

    public Map<String, Object> delete(Principal p, String id) {
        StoredFile file = get(p, id);
        store.delete(StoredFile.KIND, p.tenantId(), file.id());
        deleteQuietly(blob(p.tenantId(), file.id()));
        return new Deleted(file.id(), "file_deleted").toWire();
    }

    /** Finds a file of the caller's tenant, or 404. */
    Resource row(Principal p, String id) {
        Callers.requireApiKey(p, "use files");
        ResourceIds.require(PREFIX, id, "file_id");
        return store.find(StoredFile.KIND, p.tenantId(), id).orElseThrow(() -> PaddockException.notFound("file", id));
    }

    /** Where the file's bytes are on the host. */
    Path blob(String tenantId, String id) {
        if (!TENANT.matcher(tenantId).matches()) throw new PaddockException(ErrorCode.INVALID_TENANT, "tenant id is not usable as a directory name");
        return root.resolve(tenantId).resolve(id);
    }

    /** The bytes of the tenant's files. */
    long bytesOf(String tenantId) {
        long total = 0;
        PageRequest page = new PageRequest(PageRequest.MAX_LIMIT, null, null);
        while (true) {
            Page<Resource> rows = store.list(StoredFile.KIND, tenantId, new ResourceFilter(false, null, null, List.of(), false), page);
            for (Resource r : rows.data()) total += ((Number) r.body().get("size_bytes")).longValue();
            if (!rows.hasMore()) return total;
            page = new PageRequest(PageRequest.MAX_LIMIT, rows.lastId(), null);
        }
    }

    private static PaddockException quotaExceeded(long quota) {
        return new PaddockException(ErrorCode.STORAGE_QUOTA_EXCEEDED, "the upload would pass this tenant's storage quota of " + quota
                + " bytes (tenant_storage_quota, checkpoints and files together); delete files or checkpoints first");
    }

    /** Copies at most {@code cap} bytes; -1 when the stream has more. */
    private static long copy(InputStream in, OutputStream out, long cap) throws IOException {
        byte[] buf = new byte[64 * 1024];
        long n = 0;
        int r;
        while ((r = in.read(buf)) >= 0) {
            if (n + r > cap) return -1;
            out.write(buf, 0, r);
            n += r;
        }
        return n;
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to);
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a leftover is harmless; it is not counted
        }
    }
}
