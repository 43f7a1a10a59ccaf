package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.agents.skills.SkillArchives;
import dev.paddock.agents.skills.SkillFile;
import dev.paddock.agents.skills.SkillLimits;
import dev.paddock.agents.skills.SkillUpload;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.Session;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.io.OutputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;

/**
 * Skills, per tenant: a skill is a named directory of files with a SKILL.md, kept in versions. A version's id is the
 * Unix epoch in microseconds when it was made (as in Anthropic's Skills API), unique and increasing within its skill;
 * its files are one archive in {@link SkillArchives}, counted in the tenant's storage quota. A skill always has at least
 * one version: deleting its last one is refused, deleting the skill deletes them all.
 */
public final class SkillService {
    static final String PREFIX = "skill";
    static final String SKILL = "skill";
    static final String SKILL_VERSION = "skill_version";
    static final String LATEST = "latest";
    private static final Pattern VERSION = Pattern.compile("[0-9]{1,20}");
    private static final int MAX_DISPLAY_NAME = 255;
    private static final List<String> LIVE_SESSIONS = List.of(Session.IDLE, Session.RUNNING, Session.RESCHEDULING);

    /** One version as the loop and the sandboxes need it. */
    public record Version(String skillId, String version, String name, String description) {}

    private final ResourceStore store;
    private final SkillArchives archives;
    private final SkillLimits limits;
    private final EnvironmentService environments;
    private final ToLongFunction<String> storedBytes;
    private final LongSupplier quota;
    private final Clock clock;
    private final Map<String, Object> tenantLocks = new ConcurrentHashMap<>();

    /**
     * {@code storedBytes}: what a tenant stores in all (checkpoints, skills), {@code quota}: the most it may
     * (0: no limit).
     */
    SkillService(ResourceStore store, SkillArchives archives, SkillLimits limits, EnvironmentService environments,
                 ToLongFunction<String> storedBytes, LongSupplier quota, Clock clock) {
        this.store = store;
        this.archives = archives;
        this.limits = limits;
        this.environments = environments;
        this.storedBytes = storedBytes;
        this.quota = quota;
        this.clock = clock;
    }

    // ------------------------------------------------------------------ skills

    public Map<String, Object> create(Principal p, List<SkillFile> files, String displayName) {
        Callers.requireApiKey(p, "create skills");
        SkillUpload upload = SkillUpload.check(files, limits);
        String label = displayName == null || displayName.isBlank() ? upload.name() : checkDisplayName(displayName);
        Instant now = clock.instant();
        String id = Ids.newId(PREFIX, now);
        String version = versionAt(now, null);
        Resource version0 = storeVersion(p.tenantId(), id, version, upload, now);
        Map<String, Object> body = skillBody(id, label, version, now, now);
        try {
            store.insert(new Resource(SKILL, id, p.tenantId(), null, AgentSkill.CUSTOM, null, null, upload.name(), 0, 0, now, now, null, body));
        } catch (RuntimeException e) {
            store.delete(SKILL_VERSION, p.tenantId(), version0.id());
            archives.deleteAll(id);
            throw e;
        }
        return body;
    }

    public Map<String, Object> get(Principal p, String id) {
        Callers.requireApiKey(p, "read skills");
        return find(p.tenantId(), id).body();
    }

    /** {@code source}: null or {@code custom} lists every skill here; {@code anthropic} lists none, as none are here. */
    public ListResult list(Principal p, PageRequest page, String source) {
        Callers.requireApiKey(p, "list skills");
        if (source != null && !source.isBlank() && !List.of(AgentSkill.CUSTOM, AgentSkill.ANTHROPIC).contains(source)) {
            throw new PaddockException(ErrorCode.INVALID_PARAMETER, "source must be custom or anthropic, got '" + Text.clip(source, 30) + "'");
        }
        if (AgentSkill.ANTHROPIC.equals(source)) return new ListResult(List.of(), null, null, false, null, null);
        Page<Resource> rows = store.list(SKILL, p.tenantId(), ResourceFilter.newestFirst(true), page);
        return ListResult.of(rows.map(Resource::body), page);
    }

    /** Deletes the skill with all its versions and their files. */
    public Map<String, Object> delete(Principal p, String id) {
        Callers.requireApiKey(p, "delete skills");
        Resource skill = find(p.tenantId(), id);
        synchronized (lock(p.tenantId())) {
            for (Resource v : allVersions(p.tenantId(), id)) store.delete(SKILL_VERSION, p.tenantId(), v.id());
            store.delete(SKILL, p.tenantId(), skill.id());
            archives.deleteAll(id);
        }
        return new Deleted(id, "skill_deleted").toWire();
    }

    // ------------------------------------------------------------------ versions

    /** A new version from {@code files}, which are read only once the skill is found: an upload to no skill of the caller's is not read. */
    public Map<String, Object> createVersion(Principal p, String id, Supplier<List<SkillFile>> files) {
        Callers.requireApiKey(p, "create skill versions");
        Resource skill = find(p.tenantId(), id);
        SkillUpload upload = SkillUpload.check(files.get(), limits);
        if (!upload.name().equals(skill.aux())) {
            throw new PaddockException(ErrorCode.SKILL_NAME_MISMATCH, "skill " + id + " is named '" + skill.aux() + "', but this upload's "
                    + "SKILL.md names '" + upload.name() + "'; a skill keeps the name of its first upload");
        }
        Instant now = clock.instant();
        String version = versionAt(now, String.valueOf(skill.body().get("latest_version_id")));
        Resource row = storeVersion(p.tenantId(), id, version, upload, now);
        for (int attempt = 0; ; attempt++) {
            Resource current = find(p.tenantId(), id);
            Map<String, Object> body = new LinkedHashMap<>(current.body());
            body.put("latest_version_id", version);
            body.put("updated_at", Times.iso(now));
            try {
                store.update(current.withBody(body, now));
                break;
            } catch (PaddockException e) {
                if (!ErrorCode.CONCURRENT_UPDATE.wire().equals(e.code()) || attempt > 4) throw e;
            }
        }
        return row.body();
    }

    /** A version by id, or the newest with {@code latest}. */
    public Map<String, Object> getVersion(Principal p, String id, String version) {
        Resource skill = findReadable(p, id, version);
        return versionRow(p.tenantId(), skill, version).body();
    }

    public ListResult versions(Principal p, String id, PageRequest page) {
        Callers.requireApiKey(p, "list skill versions");
        find(p.tenantId(), id);
        Page<Resource> rows = store.list(SKILL_VERSION, p.tenantId(), new ResourceFilter(true, id, null, List.of(), true), page);
        ListResult r = ListResult.of(rows.map(Resource::body), page);
        // the rows are keyed skill:version; the answer's id cursors are the versions, as the data's ids
        return new ListResult(r.data(), r.nextPage(), r.prevPage(), r.hasMore(), versionOf(r.firstId()), versionOf(r.lastId()));
    }

    private static String versionOf(String key) {
        return key == null ? null : key.substring(key.indexOf(':') + 1);
    }

    public Map<String, Object> deleteVersion(Principal p, String id, String version) {
        Callers.requireApiKey(p, "delete skill versions");
        Resource skill = find(p.tenantId(), id);
        Resource row = versionRow(p.tenantId(), skill, version);
        String deleted = String.valueOf(row.body().get("id"));
        synchronized (lock(p.tenantId())) {
            List<Resource> all = allVersions(p.tenantId(), id);
            if (all.size() <= 1) {
                throw new PaddockException(ErrorCode.SKILL_LAST_VERSION, "version " + deleted + " is the only version of skill " + id
                        + "; delete the skill (DELETE /v1/skills/" + id + ") instead");
            }
            store.delete(SKILL_VERSION, p.tenantId(), row.id());
            archives.delete(id, deleted);
            Resource newest = all.stream().filter(r -> !r.id().equals(row.id())).findFirst().orElseThrow();
            Resource current = find(p.tenantId(), id);
            Map<String, Object> body = new LinkedHashMap<>(current.body());
            body.put("latest_version_id", newest.body().get("id"));
            body.put("updated_at", Times.iso(clock.instant()));
            store.update(current.withBody(body, clock.instant()));
        }
        return new Deleted(deleted, "skill_version_deleted").toWire();
    }

    /** A checked download: the skill's name (the archive's top-level directory) and how to write the zip. */
    public record Download(String name, String version, Consumer<OutputStream> writer) {}

    /** The version's files as a zip archive, checked before anything is written. */
    public Download content(Principal p, String id, String version) {
        Resource skill = findReadable(p, id, version);
        String v = String.valueOf(versionRow(p.tenantId(), skill, version).body().get("id"));
        return new Download(skill.aux(), v, out -> archives.writeZip(id, v, out));
    }

    /** What one version may hold. */
    public SkillLimits limits() {
        return limits;
    }

    /** Where uploads are staged while a request is read (a private directory under the data directory). */
    public Path uploadStaging() {
        return archives.uploadStaging();
    }

    // ------------------------------------------------------------------ for agents and sessions

    /**
     * The skill an agent request names, resolved to a version of a skill of this tenant. A skill of type
     * {@code anthropic} exists only when one with that id was uploaded here.
     */
    AgentSkill resolve(String tenantId, String where, String type, String skillId, String version) {
        boolean here = ResourceIds.isPlausible(PREFIX, skillId) && store.find(SKILL, tenantId, skillId).isPresent();
        if (AgentSkill.ANTHROPIC.equals(type) && !here) {
            throw new PaddockException(ErrorCode.ANTHROPIC_SKILLS_UNAVAILABLE, "field '" + where + ".skill_id': Anthropic's own skill '"
                    + Text.clip(skillId, 60) + "' is not available on a self-hosted Paddock server; upload a skill of your own "
                    + "(POST /v1/skills) and pin it as {\"type\": \"custom\", \"skill_id\": \"skill_...\"}");
        }
        if (!ResourceIds.isPlausible(PREFIX, skillId)) {
            throw new PaddockException(ErrorCode.INVALID_ID, "field '" + where + ".skill_id' must be a skill id like skill_0123456789abcdefghjkmnpqrs, got '"
                    + Text.clip(skillId, 60) + "'");
        }
        Resource skill = store.find(SKILL, tenantId, skillId).orElseThrow(() ->
                new PaddockException(ErrorCode.SKILL_NOT_FOUND, "field '" + where + ".skill_id': skill '" + skillId + "' does not exist"));
        String resolved = version == null || version.isBlank() || LATEST.equals(version)
                ? String.valueOf(skill.body().get("latest_version_id")) : version;
        if (!VERSION.matcher(resolved).matches() || store.find(SKILL_VERSION, tenantId, versionKey(skillId, resolved)).isEmpty()) {
            throw new PaddockException(ErrorCode.SKILL_VERSION_NOT_FOUND, "field '" + where + ".version': skill " + skillId + " has no version '"
                    + Text.clip(resolved, 40) + "'; pass one of its versions or 'latest'");
        }
        return new AgentSkill(type, skillId, resolved);
    }

    /** The pinned version, if it still exists. */
    Optional<Version> version(String tenantId, AgentSkill s) {
        if (!ResourceIds.isPlausible(PREFIX, s.skillId()) || !VERSION.matcher(s.version()).matches()) return Optional.empty();
        return store.find(SKILL_VERSION, tenantId, versionKey(s.skillId(), s.version())).map(r -> new Version(s.skillId(), s.version(),
                String.valueOf(r.body().get("name")), String.valueOf(r.body().get("description"))));
    }

    SkillArchives archives() {
        return archives;
    }

    /** The bytes of every skill version a tenant keeps, for its storage quota. */
    public long storedBytes(String tenantId) {
        long total = 0;
        String after = null;
        while (true) {
            Page<Resource> page = store.list(SKILL_VERSION, tenantId, new ResourceFilter(true, null, null, List.of(), false),
                    new PageRequest(PageRequest.MAX_LIMIT, after, null));
            for (Resource r : page.data()) total += r.version();
            if (!page.hasMore() || page.lastId() == null) return total;
            after = page.lastId();
        }
    }

    // ------------------------------------------------------------------ internals

    private Resource storeVersion(String tenantId, String skillId, String version, SkillUpload upload, Instant now) {
        synchronized (lock(tenantId)) {
            long limit = quota.getAsLong();
            long used = limit > 0 ? storedBytes.applyAsLong(tenantId) : 0;
            if (limit > 0 && used + upload.bytes() > limit) throw quotaExceeded(upload.bytes(), limit, used);
            long bytes = archives.write(skillId, version, upload);
            // the archive is what is stored: checked once its size is known
            if (limit > 0 && used + bytes > limit) {
                archives.delete(skillId, version);
                throw quotaExceeded(bytes, limit, used);
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("id", version);
            body.put("type", SKILL_VERSION);
            body.put("created_at", Times.iso(now));
            body.put("description", upload.description());
            body.put("name", upload.name());
            body.put("skill_id", skillId);
            // the archive's size rides in the version column: counted for the quota, never sent
            Resource row = new Resource(SKILL_VERSION, versionKey(skillId, version), tenantId, null, null, skillId, null, null, bytes, 0,
                    now, now, null, body);
            try {
                store.insert(row);
            } catch (RuntimeException e) {
                archives.delete(skillId, version);
                throw e;
            }
            return row;
        }
    }

    private static PaddockException quotaExceeded(long bytes, long limit, long used) {
        return new PaddockException(ErrorCode.STORAGE_QUOTA_EXCEEDED, "this skill version's " + bytes + " bytes would pass this tenant's storage "
                + "quota of " + limit + " bytes (" + Math.max(0, limit - used) + " left); delete skills, skill versions or checkpoints first");
    }

    private static Map<String, Object> skillBody(String id, String displayName, String latest, Instant created, Instant updated) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", SKILL);
        m.put("created_at", Times.iso(created));
        m.put("display_name", displayName);
        m.put("latest_version_id", latest);
        m.put("source", Map.of("type", AgentSkill.CUSTOM));
        m.put("updated_at", Times.iso(updated));
        return m;
    }

    private static String checkDisplayName(String s) {
        if (s.length() > MAX_DISPLAY_NAME) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'display_name' must be at most " + MAX_DISPLAY_NAME + " characters");
        }
        if (s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'display_name' must be a single line");
        return s.strip();
    }

    /** Microseconds since the epoch, past {@code previous} so versions of one skill increase. */
    private static String versionAt(Instant now, String previous) {
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, now);
        if (previous != null && VERSION.matcher(previous).matches()) micros = Math.max(micros, Long.parseLong(previous) + 1);
        return Long.toString(micros);
    }

    Resource find(String tenantId, String id) {
        ResourceIds.require(PREFIX, id, "skill_id");
        return store.find(SKILL, tenantId, id).orElseThrow(() -> new PaddockException(ErrorCode.SKILL_NOT_FOUND, "skill '" + id + "' does not exist"));
    }

    private Resource versionRow(String tenantId, Resource skill, String version) {
        String v = LATEST.equals(version) ? String.valueOf(skill.body().get("latest_version_id")) : version;
        if (v == null || !VERSION.matcher(v).matches()) {
            throw new PaddockException(ErrorCode.INVALID_ID, "version must be a skill version such as 1759178010641129, or 'latest'; got '"
                    + Text.clip(version, 40) + "'");
        }
        return store.find(SKILL_VERSION, tenantId, versionKey(skill.id(), v)).orElseThrow(() ->
                new PaddockException(ErrorCode.SKILL_VERSION_NOT_FOUND, "skill " + skill.id() + " has no version '" + v + "'"));
    }

    /**
     * An API key reads any skill of its tenant. An environment key (a self-hosted worker) reads only a version that a
     * live session of its environment pins, which is what it needs to lay that session's skills out.
     */
    private Resource findReadable(Principal p, String id, String version) {
        if (!Callers.isEnvironmentKey(p)) return find(p.tenantId(), id);
        ResourceIds.require(PREFIX, id, "skill_id");
        // the pin is checked before the skill is looked up, so a skill the key may not read answers as one that does not exist
        String environment = environments.boundEnvironment(p);
        Page<Resource> sessions = store.list(Resource.SESSION, p.tenantId(), new ResourceFilter(false, environment, null, LIVE_SESSIONS, true),
                PageRequest.first(PageRequest.MAX_LIMIT));
        for (Resource r : sessions.data()) {
            for (AgentSkill s : SessionResource.of(new Session(r)).agent().skills()) {
                if (s.skillId().equals(id) && s.version().equals(version)) return find(p.tenantId(), id);
            }
        }
        throw new PaddockException(ErrorCode.SKILL_NOT_FOUND, "skill '" + id + "' at version '" + Text.clip(version, 40)
                + "' is pinned by no live session of this environment key's environment");
    }

    /** Every version of the skill, newest first. */
    private List<Resource> allVersions(String tenantId, String skillId) {
        List<Resource> out = new ArrayList<>();
        String after = null;
        while (true) {
            Page<Resource> page = store.list(SKILL_VERSION, tenantId, new ResourceFilter(true, skillId, null, List.of(), true),
                    new PageRequest(PageRequest.MAX_LIMIT, after, null));
            out.addAll(page.data());
            if (!page.hasMore() || page.lastId() == null) return out;
            after = page.lastId();
        }
    }

    private Object lock(String tenantId) {
        return tenantLocks.computeIfAbsent(tenantId, t -> new Object());
    }

    static String versionKey(String skillId, String version) {
        return skillId + ":" + version;
    }
}
