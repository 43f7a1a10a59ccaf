package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import dev.paddock.access.Principal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Environments (where a session's tools run) and their environment keys. A key is shown once at creation; only
 * its SHA-256 is stored, as with API keys, but in its own table of resources so that the two never mix.
 */
public final class EnvironmentService {
    static final String PREFIX = "env";
    static final String KEY_SECRET_PREFIX = "pek_";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<String> CREATE_FIELDS = Set.of("name", "description", "config", "metadata", "scope");
    private static final Set<String> UPDATE_FIELDS = CREATE_FIELDS;

    private final ResourceStore store;
    private final EnvironmentConfigs configs;
    private final Clock clock;

    public EnvironmentService(ResourceStore store, EnvironmentConfigs configs, Clock clock) {
        this.store = store;
        this.configs = configs;
        this.clock = clock;
    }

    public Environment create(Principal p, Map<String, Object> body) {
        Callers.requireApiKey(p, "create environments");
        Fields.allowOnly(body, CREATE_FIELDS, "");
        Instant now = clock.instant();
        String id = Ids.newId(PREFIX, now);
        String name = Fields.requiredString(body, "name", 256);
        EnvironmentConfig config = configs.normalize(Fields.object(body.get("config"), "config"));
        Environment env = new Environment(id, name, Fields.optionalString(body, "description", 2048), config,
                Fields.metadata(body.get("metadata"), "metadata"), scope(body), Times.iso(now), Times.iso(now), null);
        store.insert(new Resource(Resource.ENVIRONMENT, id, p.tenantId(), name, config.type(), null, null, null, 0, 0, now, now, null, env.toWire()));
        return env;
    }

    public Environment get(Principal p, String id) {
        return Environment.of(find(p, id));
    }

    public ListResult list(Principal p, PageRequest page, boolean includeArchived) {
        Callers.requireApiKey(p, "list environments");
        Page<Resource> rows = store.list(Resource.ENVIRONMENT, p.tenantId(), ResourceFilter.newestFirst(includeArchived), page);
        return ListResult.of(rows.map(r -> Environment.of(r).toWire()), page);
    }

    public Environment update(Principal p, String id, Map<String, Object> body) {
        Callers.requireApiKey(p, "update environments");
        Fields.allowOnly(body, UPDATE_FIELDS, "");
        Resource r = find(p, id);
        if (r.archivedAt() != null) {
            throw new PaddockException(ErrorCode.ENVIRONMENT_ARCHIVED, "environment " + id + " is archived and cannot be updated");
        }
        Environment env = Environment.of(r);
        String name = body.get("name") != null ? Fields.requiredString(body, "name", 256) : r.uniqueKey();
        String description = body.containsKey("description") ? Fields.optionalString(body, "description", 2048) : env.description();
        EnvironmentConfig config = env.config();
        if (body.get("config") != null) {
            config = configs.normalize(Fields.object(body.get("config"), "config"));
            if (!config.type().equals(r.state())) {
                throw new PaddockException(ErrorCode.INVALID_CONFIG_TYPE_CHANGE, "an environment's config type cannot change (it is "
                        + r.state() + "); create a new environment instead");
            }
        }
        Map<String, String> metadata = body.containsKey("metadata")
                ? Fields.patchMetadata(env.metadata(), body.get("metadata"), "metadata") : env.metadata();
        String scope = body.get("scope") != null ? scope(body) : env.scope();
        Instant now = clock.instant();
        Environment updated = new Environment(env.id(), name, description, config, metadata, scope, env.createdAt(), Times.iso(now), env.archivedAt());
        return Environment.of(store.update(r.withBody(updated.toWire(), now).withUniqueKey(name)));
    }

    public Environment archive(Principal p, String id) {
        Callers.requireApiKey(p, "archive environments");
        Resource r = find(p, id);
        if (r.archivedAt() != null) return Environment.of(r);
        Instant now = clock.instant();
        Environment env = Environment.of(r).archive(Times.iso(now));
        return Environment.of(store.update(r.archived(now).withBody(env.toWire(), now)));
    }

    public Map<String, Object> delete(Principal p, String id) {
        Callers.requireApiKey(p, "delete environments");
        Resource r = find(p, id);
        boolean hasSessions = !store.list(Resource.SESSION, p.tenantId(), new ResourceFilter(true, id, null, List.of(), true), PageRequest.first(1)).data().isEmpty();
        if (hasSessions) {
            throw new PaddockException(ErrorCode.ENVIRONMENT_IN_USE, "environment " + id + " still has sessions; delete them first or archive the environment");
        }
        store.delete(Resource.ENVIRONMENT, p.tenantId(), r.id());
        return new Deleted(id, "environment_deleted").toWire();
    }

    // ---------------------------------------------------------------- environment keys

    /** Creates a key for the environment; the secret is in the answer only. */
    public Map<String, Object> createKey(Principal p, String environmentId, Map<String, Object> body) {
        Callers.requireApiKey(p, "create environment keys");
        Fields.allowOnly(body, Set.of("name"), "");
        Resource env = find(p, environmentId);
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        String secret = KEY_SECRET_PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        Instant now = clock.instant();
        String id = Ids.newId(Callers.ENVIRONMENT_KEY_PREFIX, now);
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("id", id);
        key.put("type", "environment_key");
        key.put("environment_id", env.id());
        key.put("name", Fields.optionalString(body, "name", 256));
        key.put("prefix", secret.substring(0, 8));
        key.put("created_at", Times.iso(now));
        store.insert(new Resource(Resource.ENVIRONMENT_KEY, id, p.tenantId(), hash(secret), null, env.id(), null, null, 0, 0, now, now, null, key));
        Map<String, Object> shown = new LinkedHashMap<>(key);
        shown.put("key", secret);
        return shown;
    }

    public ListResult listKeys(Principal p, String environmentId, PageRequest page) {
        Callers.requireApiKey(p, "list environment keys");
        find(p, environmentId);
        Page<Resource> rows = store.list(Resource.ENVIRONMENT_KEY, p.tenantId(), new ResourceFilter(false, environmentId, null, List.of(), true), page);
        return ListResult.of(rows.map(Resource::body), page);
    }

    public void revokeKey(Principal p, String environmentId, String keyId) {
        Callers.requireApiKey(p, "revoke environment keys");
        find(p, environmentId);
        Resource key = store.find(Resource.ENVIRONMENT_KEY, p.tenantId(), keyId)
                .filter(k -> environmentId.equals(k.parentId()))
                .orElseThrow(() -> PaddockException.notFound("environment key", keyId));
        store.delete(Resource.ENVIRONMENT_KEY, p.tenantId(), key.id());
    }

    /** The caller an environment key stands for; empty for anything that is not a live environment key. */
    public Optional<Principal> authenticate(String secret) {
        if (secret == null || !secret.startsWith(KEY_SECRET_PREFIX) || secret.length() > 256) return Optional.empty();
        return store.findByUniqueKey(Resource.ENVIRONMENT_KEY, hash(secret))
                .map(k -> new Principal(k.tenantId(), k.id(), false));
    }

    /** The environment an environment-key caller is bound to. */
    public String boundEnvironment(Principal p) {
        return store.find(Resource.ENVIRONMENT_KEY, p.tenantId(), p.keyId()).map(Resource::parentId)
                .orElseThrow(() -> new PaddockException(ErrorCode.INVALID_API_KEY, "the environment key was revoked"));
    }

    /** Finds an environment; an environment key sees its own environment only. */
    Resource find(Principal p, String id) {
        ResourceIds.require(PREFIX, id, "environment_id");
        if (Callers.isEnvironmentKey(p) && !boundEnvironment(p).equals(id)) {
            throw notFound(id);
        }
        return store.find(Resource.ENVIRONMENT, p.tenantId(), id).orElseThrow(() -> notFound(id));
    }

    private static PaddockException notFound(String id) {
        return new PaddockException(ErrorCode.ENVIRONMENT_NOT_FOUND, "environment '" + id + "' does not exist");
    }

    private static String scope(Map<String, Object> body) {
        String scope = Fields.optionalString(body, "scope", 32);
        if (scope == null) return "organization";
        if (!scope.equals("organization") && !scope.equals("account")) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'scope' must be organization or account");
        }
        return scope;
    }

    static String hash(String secret) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
