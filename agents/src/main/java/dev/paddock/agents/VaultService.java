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
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Vaults: named, per-tenant holders of credentials that sessions name in {@code vault_ids}. A vault holds no secret
 * itself; its credentials do (see {@link VaultCredentialService}). Deleting a vault deletes its credentials.
 */
public final class VaultService {
    static final String PREFIX = "vlt";
    static final String KIND = "vault";
    private static final Set<String> CREATE_FIELDS = Set.of("display_name", "metadata");

    private final ResourceStore store;
    private final Clock clock;

    public VaultService(ResourceStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    public Map<String, Object> create(Principal p, Map<String, Object> body) {
        Callers.requireApiKey(p, "create vaults");
        Fields.allowOnly(body, CREATE_FIELDS, "");
        String name = displayName(body);
        Map<String, String> metadata = Fields.metadata(body.get("metadata"), "metadata");
        Instant now = clock.instant();
        String id = Ids.newId(PREFIX, now);
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("id", id);
        wire.put("type", "vault");
        wire.put("display_name", name);
        wire.put("metadata", metadata);
        wire.put("created_at", Times.iso(now));
        wire.put("updated_at", Times.iso(now));
        wire.put("archived_at", null);
        store.insert(new Resource(KIND, id, p.tenantId(), null, null, null, null, null, 0, 0, now, now, null, wire));
        return wire;
    }

    public Map<String, Object> get(Principal p, String id) {
        Callers.requireApiKey(p, "read vaults");
        return find(p.tenantId(), id).body();
    }

    public ListResult list(Principal p, PageRequest page, boolean includeArchived) {
        Callers.requireApiKey(p, "list vaults");
        Page<Resource> rows = store.list(KIND, p.tenantId(), ResourceFilter.newestFirst(includeArchived), page);
        return ListResult.of(rows.map(Resource::body), page);
    }

    public Map<String, Object> update(Principal p, String id, Map<String, Object> body) {
        Callers.requireApiKey(p, "update vaults");
        Fields.allowOnly(body, CREATE_FIELDS, "");
        Resource r = find(p.tenantId(), id);
        if (r.archivedAt() != null) throw new PaddockException(ErrorCode.VAULT_ARCHIVED, "vault " + id + " is archived and cannot be updated");
        Map<String, Object> wire = new LinkedHashMap<>(r.body());
        if (body.get("display_name") != null) wire.put("display_name", displayName(body));
        if (body.get("metadata") != null) {
            wire.put("metadata", Fields.patchMetadata(Fields.storedMetadata(wire.get("metadata")), body.get("metadata"), "metadata"));
        }
        Instant now = clock.instant();
        wire.put("updated_at", Times.iso(now));
        return store.update(r.withBody(wire, now)).body();
    }

    /** Archives the vault: it stays readable, takes no new credentials, and sessions can no longer name it. */
    public Map<String, Object> archive(Principal p, String id) {
        Callers.requireApiKey(p, "archive vaults");
        Resource r = find(p.tenantId(), id);
        if (r.archivedAt() != null) return r.body();
        Instant now = clock.instant();
        Map<String, Object> wire = new LinkedHashMap<>(r.body());
        wire.put("archived_at", Times.iso(now));
        wire.put("updated_at", Times.iso(now));
        return store.update(r.archived(now).withBody(wire, now)).body();
    }

    public Map<String, Object> delete(Principal p, String id, VaultCredentialService credentials) {
        Callers.requireApiKey(p, "delete vaults");
        find(p.tenantId(), id);
        credentials.deleteAll(p.tenantId(), id);
        store.delete(KIND, p.tenantId(), id);
        return new Deleted(id, "vault_deleted").toWire();
    }

    /** Checks a session's {@code vault_ids}: each names a live vault of the caller's tenant. */
    List<String> requireUsable(Principal p, List<String> ids) {
        for (int i = 0; i < ids.size(); i++) {
            String id = ResourceIds.require(PREFIX, ids.get(i), "vault_ids[" + i + "]");
            Resource r = find(p.tenantId(), id);
            if (r.archivedAt() != null) throw new PaddockException(ErrorCode.VAULT_ARCHIVED, "vault " + id + " is archived; sessions cannot use it");
        }
        if (ids.stream().distinct().count() != ids.size()) {
            throw new PaddockException(ErrorCode.INVALID_FIELD, "field 'vault_ids' names a vault twice");
        }
        return List.copyOf(ids);
    }

    Resource find(String tenantId, String id) {
        ResourceIds.require(PREFIX, id, "vault_id");
        return store.find(KIND, tenantId, id).orElseThrow(() -> PaddockException.notFound("vault", id));
    }

    private static String displayName(Map<String, Object> body) {
        return Fields.requiredString(body, "display_name", 255);
    }
}
