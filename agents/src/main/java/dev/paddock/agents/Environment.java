package dev.paddock.agents;

import dev.paddock.core.agents.Resource;
import dev.paddock.core.spi.NetworkPolicy;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An environment: where a session's tools run ({@code config.type}: cloud, self_hosted or none) and what a session
 * sandbox of a cloud environment is made with. {@link #toWire()} is its one wire (and stored) shape.
 *
 * @param scope     organization or account
 * @param createdAt ISO-8601, as on the wire; likewise {@code updatedAt} and {@code archivedAt} (null while live)
 */
public record Environment(String id, String name, String description, EnvironmentConfig config, Map<String, String> metadata, String scope,
                          String createdAt, String updatedAt, String archivedAt) {
    static final String TYPE = "environment";

    public Environment {
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    }

    /** Reads a stored environment. */
    public static Environment of(Resource row) {
        return fromWire(row.body());
    }

    static Environment fromWire(Map<String, Object> m) {
        Map<String, String> metadata = Fields.storedMetadata(m.get("metadata"));
        return new Environment((String) m.get("id"), (String) m.get("name"), (String) m.get("description"),
                EnvironmentConfig.fromWire(AgentSpec.map(m.get("config"))), metadata, (String) m.get("scope"),
                (String) m.get("created_at"), (String) m.get("updated_at"), (String) m.get("archived_at"));
    }

    public Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", TYPE);
        m.put("name", name);
        m.put("description", description);
        m.put("config", config.toWire());
        m.put("metadata", new LinkedHashMap<>(metadata));
        m.put("scope", scope);
        m.put("created_at", createdAt);
        m.put("updated_at", updatedAt);
        m.put("archived_at", archivedAt);
        return m;
    }

    Environment archive(String at) {
        return new Environment(id, name, description, config, metadata, scope, createdAt, at, at);
    }

    /** cloud, self_hosted or none. */
    public String type() {
        return config.type();
    }

    /** The driver of its sandboxes (cloud), or null. */
    public String driver() {
        return config.driver();
    }

    public NetworkPolicy network() {
        return config.network();
    }

    /** The package lists to install, by manager, empty lists left out. */
    public Map<String, List<String>> packages() {
        return config.wantedPackages();
    }

    /** An external worker runs the tools. */
    public boolean selfHosted() {
        return EnvironmentConfigs.SELF_HOSTED.equals(type());
    }

    /** The tools run on the host, without a sandbox. */
    public boolean sandboxFree() {
        return EnvironmentConfigs.NONE.equals(type());
    }
}
