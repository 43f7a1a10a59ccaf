package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A session's resources (files and GitHub repositories): checked when the session is created or one is added, kept as
 * {@code session_resource} rows under the session, answered in the SDKs' shapes. A repository's token is sealed in the
 * vault at once and never answered. {@code memory_store} resources are refused: Paddock has no memory stores.
 */
public final class SessionMounts {
    static final int MAX_PER_SESSION = 100;
    private static final Set<String> FILE_FIELDS = Set.of("type", "file_id", "mount_path");
    private static final Set<String> REPOSITORY_FIELDS = Set.of("type", "url", "authorization_token", "checkout", "mount_path");
    private static final Pattern SHA = Pattern.compile("[0-9a-fA-F]{7,64}");
    private static final Pattern BRANCH = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/+-]{0,254}");

    /** A resource as asked for, checked, before it is stored. */
    record Requested(String type, String fileId, String url, Map<String, Object> checkout, String mountPath, SecretValue token) {}

    private final ResourceStore store;
    private final FileService files;
    private final ResourceSettings settings;
    private final Clock clock;
    /** The time part of the last id given out: ids sort as resources were added, also within one millisecond. */
    private long lastIdMillis;

    SessionMounts(ResourceStore store, FileService files, ResourceSettings settings, Clock clock) {
        this.store = store;
        this.files = files;
        this.settings = settings;
        this.clock = clock;
    }

    /** Checks a create request's {@code resources} for a session in {@code env}; nothing is stored yet. */
    List<Requested> check(Principal p, List<Object> entries, Environment env) {
        if (entries == null || entries.isEmpty()) return List.of();
        if (entries.size() > MAX_PER_SESSION) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'resources' may hold at most " + MAX_PER_SESSION + " resources");
        List<Requested> out = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Requested r = checkOne(p, entries.get(i), "resources[" + i + "]", env);
            for (Requested other : out) requireApart(r.mountPath(), other.mountPath(), "resources[" + i + "].mount_path");
            out.add(r);
        }
        return out;
    }

    /** Stores checked resources under a new session. */
    void attach(Principal p, String sessionId, List<Requested> requested) {
        for (Requested r : requested) store(p, sessionId, r);
    }

    public ListResult list(Principal p, Session session, PageRequest page) {
        Page<Resource> rows = store.list(SessionMount.KIND, p.tenantId(), new ResourceFilter(false, session.id(), null, List.of(), false), page);
        return ListResult.of(rows.map(r -> SessionMount.of(r).toWire()), page);
    }

    public SessionMount add(Principal p, Session session, Environment env, Map<String, Object> body) {
        Requested r = checkOne(p, body, "", env);
        List<SessionMount> existing = of(p.tenantId(), session.id());
        if (existing.size() >= MAX_PER_SESSION) throw new PaddockException(ErrorCode.INVALID_FIELD, "a session may have at most " + MAX_PER_SESSION + " resources");
        for (SessionMount m : existing) requireApart(r.mountPath(), m.mountPath(), "mount_path");
        return store(p, session.id(), r);
    }

    public SessionMount get(Principal p, Session session, String id) {
        ResourceIds.require(SessionMount.PREFIX, id, "resource_id");
        return store.find(SessionMount.KIND, p.tenantId(), id).filter(r -> session.id().equals(r.parentId())).map(SessionMount::of)
                .orElseThrow(() -> PaddockException.notFound("session resource", id));
    }

    /** Rotates a repository's token, the one change the SDKs allow. */
    public SessionMount update(Principal p, Session session, String id, Map<String, Object> body) {
        Fields.allowOnly(body, Set.of("authorization_token"), "");
        String token = Fields.requiredString(body, "authorization_token", SecretValue.MAX_BYTES);
        SessionMount m = get(p, session, id);
        if (!m.isRepository()) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'authorization_token' applies to github_repository resources only; " + id + " is a file");
        }
        ResourceSecrets secrets = requireSecrets();
        Resource row = store.find(SessionMount.KIND, p.tenantId(), id).orElseThrow();
        String at = Times.iso(clock.instant());
        SessionMount updated;
        if (m.tokenSecretId() != null) {
            secrets.replace(p.tenantId(), m.tokenSecretId(), SecretValue.of(token));
            updated = m.withToken(m.tokenSecretId(), at);
        } else {
            updated = m.withToken(secrets.seal(p.tenantId(), secretName(id), SecretValue.of(token)), at);
        }
        return SessionMount.of(store.update(row.withAux(updated.tokenSecretId()).withBody(updated.toWire(), clock.instant())));
    }

    public Map<String, Object> delete(Principal p, Session session, String id) {
        SessionMount m = get(p, session, id);
        store.delete(SessionMount.KIND, p.tenantId(), id);
        forgetToken(p.tenantId(), m);
        return new Deleted(id, "session_resource_deleted").toWire();
    }

    /** Deletes every resource of a session that is being deleted, tokens included. */
    void deleteAll(String tenantId, String sessionId) {
        for (SessionMount m : of(tenantId, sessionId)) {
            store.delete(SessionMount.KIND, tenantId, m.id());
            forgetToken(tenantId, m);
        }
    }

    /** The session's resources in the order they were added. */
    List<SessionMount> of(String tenantId, String sessionId) {
        List<SessionMount> out = new ArrayList<>();
        PageRequest page = new PageRequest(PageRequest.MAX_LIMIT, null, null);
        Page<Resource> rows = store.list(SessionMount.KIND, tenantId, new ResourceFilter(false, sessionId, null, List.of(), false), page);
        for (Resource r : rows.data()) out.add(SessionMount.of(r));
        return out;
    }

    private SessionMount store(Principal p, String sessionId, Requested r) {
        Instant now = clock.instant();
        String id = Ids.newId(SessionMount.PREFIX, idTime(now));
        String secretId = r.token() == null ? null : requireSecrets().seal(p.tenantId(), secretName(id), r.token());
        SessionMount m = new SessionMount(id, sessionId, r.type(), r.fileId(), r.url(), r.checkout(), r.mountPath(), secretId, Times.iso(now), Times.iso(now));
        store.insert(new Resource(SessionMount.KIND, id, p.tenantId(), null, r.type(), sessionId, r.fileId(), secretId, 0, 0, now, now, null, m.toWire()));
        return m;
    }

    private synchronized Instant idTime(Instant now) {
        lastIdMillis = Math.max(now.toEpochMilli(), lastIdMillis + 1);
        return Instant.ofEpochMilli(lastIdMillis);
    }

    private Requested checkOne(Principal p, Object entry, String where, Environment env) {
        String at = where.isEmpty() ? "" : where + ".";
        Map<String, Object> m = Fields.object(entry, where.isEmpty() ? "body" : where);
        if (m == null) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + "' must be an object");
        Object type = m.get("type");
        if ("memory_store".equals(type)) {
            throw new PaddockException(ErrorCode.MEMORY_STORES_NOT_SUPPORTED, "field '" + at + "type': Paddock does not have memory stores; "
                    + "send file or github_repository resources");
        }
        if (env.selfHosted()) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + at + "type': resources are laid into Paddock's own sandboxes, and a "
                    + "self_hosted environment's worker runs the tools elsewhere");
        }
        Requested r;
        if (SessionMount.FILE.equals(type)) {
            Fields.allowOnly(m, FILE_FIELDS, where);
            String fileId = Fields.requiredString(m, "file_id", 128);
            StoredFile file = StoredFile.of(files.row(p, fileId));
            String mount = mountPath(m, at, MountPaths.UPLOADS + "/" + file.id());
            r = new Requested(SessionMount.FILE, file.id(), null, null, mount, null);
        } else if (SessionMount.REPOSITORY.equals(type)) {
            Fields.allowOnly(m, REPOSITORY_FIELDS, where);
            String url = RepositoryUrls.check(Fields.requiredString(m, "url", 2048), settings.githubBaseUrl(), at + "url");
            String token = Fields.optionalString(m, "authorization_token", SecretValue.MAX_BYTES);
            if (token != null && token.isEmpty()) token = null;
            if (token != null) requireSecrets();
            String mount = mountPath(m, at, "/workspace/" + RepositoryUrls.repoName(url));
            r = new Requested(SessionMount.REPOSITORY, null, url, checkout(m.get("checkout"), at + "checkout"), mount,
                    token == null ? null : SecretValue.of(token));
        } else {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + at + "type' must be 'file' or 'github_repository', got '"
                    + Text.clip(String.valueOf(type), 40) + "'");
        }
        if (env.sandboxFree() && !r.mountPath().startsWith("/workspace/")) {
            throw new PaddockException(ErrorCode.INVALID_MOUNT_PATH, "field '" + at + "mount_path' must be under /workspace/ in a sandbox-free "
                    + "environment: its tools run on the Paddock host, where Paddock makes nothing outside the workspace");
        }
        return r;
    }

    private static String mountPath(Map<String, Object> m, String at, String fallback) {
        String given = Fields.optionalString(m, "mount_path", 4096);
        return MountPaths.check(given == null ? fallback : given, at + "mount_path");
    }

    private static Map<String, Object> checkout(Object value, String field) {
        Map<String, Object> c = Fields.object(value, field);
        if (c == null) return null;
        Object type = c.get("type");
        Map<String, Object> out = new LinkedHashMap<>();
        if ("branch".equals(type)) {
            Fields.allowOnly(c, Set.of("type", "name"), field);
            String name = Fields.requiredString(c, "name", 255);
            if (!BRANCH.matcher(name).matches() || name.contains("..") || name.endsWith(".lock") || name.endsWith("/")) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + ".name' is not a branch name");
            }
            out.put("type", "branch");
            out.put("name", name);
        } else if ("commit".equals(type)) {
            Fields.allowOnly(c, Set.of("type", "sha"), field);
            String sha = Fields.requiredString(c, "sha", 64);
            if (!SHA.matcher(sha).matches()) throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + ".sha' must be 7 to 64 hex digits");
            out.put("type", "commit");
            out.put("sha", sha.toLowerCase(Locale.ROOT));
        } else {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + field + ".type' must be 'branch' or 'commit'");
        }
        return out;
    }

    private static void requireApart(String a, String b, String field) {
        if (MountPaths.overlap(a, b)) {
            throw new PaddockException(ErrorCode.INVALID_MOUNT_PATH, "field '" + field + "' ('" + Text.clip(a, 80) + "') overlaps another resource's mount path '"
                    + Text.clip(b, 80) + "'");
        }
    }

    private ResourceSecrets requireSecrets() {
        if (settings.secrets() == null) {
            throw new PaddockException(ErrorCode.VAULT_UNAVAILABLE, "this server has no secret vault, so it cannot keep an authorization_token");
        }
        return settings.secrets();
    }

    private void forgetToken(String tenantId, SessionMount m) {
        if (m.tokenSecretId() == null) return;
        try {
            settings.secrets().delete(tenantId, m.tokenSecretId());
        } catch (PaddockException ignored) {
            // already gone
        }
    }

    private static String secretName(String resourceId) {
        return "session-resource." + resourceId;
    }
}
