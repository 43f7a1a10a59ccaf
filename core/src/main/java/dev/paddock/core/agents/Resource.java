package dev.paddock.core.agents;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One stored Managed Agents resource (agent, agent version, environment, environment key, session). The wire body
 * lives in {@code body} as JSON-safe values; the columns beside it exist to filter, order and fence.
 *
 * @param kind      which resource this is, one of the constants below
 * @param uniqueKey a value unique per kind and tenant (environment names, key hashes) or null
 * @param state     a filterable state (session status, environment config type) or null
 * @param parentId  the owning resource (session: environment; agent version and key: its agent or environment)
 * @param refId     a second reference (session: agent id) or null
 * @param aux       private data never sent to clients (session: its sandbox id) or null
 * @param version   the domain version (agents) or 0
 * @param revision  bumped by every update; updates compare and set it
 */
public record Resource(
        String kind,
        String id,
        String tenantId,
        String uniqueKey,
        String state,
        String parentId,
        String refId,
        String aux,
        long version,
        long revision,
        Instant createdAt,
        Instant updatedAt,
        Instant archivedAt,
        Map<String, Object> body) {

    public static final String AGENT = "agent";
    public static final String AGENT_VERSION = "agent_version";
    public static final String ENVIRONMENT = "environment";
    public static final String ENVIRONMENT_KEY = "environment_key";
    public static final String SESSION = "session";

    public Resource {
        // JSON bodies hold nulls (absent values), which Map.copyOf refuses
        body = body == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(body));
    }

    public Resource withBody(Map<String, Object> b, Instant at) {
        return new Resource(kind, id, tenantId, uniqueKey, state, parentId, refId, aux, version, revision, createdAt, at, archivedAt, b);
    }

    public Resource withState(String s, Instant at) {
        return new Resource(kind, id, tenantId, uniqueKey, s, parentId, refId, aux, version, revision, createdAt, at, archivedAt, body);
    }

    public Resource withAux(String a) {
        return new Resource(kind, id, tenantId, uniqueKey, state, parentId, refId, a, version, revision, createdAt, updatedAt, archivedAt, body);
    }

    public Resource withVersion(long v) {
        return new Resource(kind, id, tenantId, uniqueKey, state, parentId, refId, aux, v, revision, createdAt, updatedAt, archivedAt, body);
    }

    public Resource withUniqueKey(String k) {
        return new Resource(kind, id, tenantId, k, state, parentId, refId, aux, version, revision, createdAt, updatedAt, archivedAt, body);
    }

    public Resource archived(Instant at) {
        return new Resource(kind, id, tenantId, uniqueKey, state, parentId, refId, aux, version, revision, createdAt, at, at, body);
    }
}
