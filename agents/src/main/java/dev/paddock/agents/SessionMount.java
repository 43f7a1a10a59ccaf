package dev.paddock.agents;

import dev.paddock.core.agents.Resource;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One resource of a session ({@code BetaManagedAgentsFileResource} or {@code BetaManagedAgentsGitHubRepositoryResource}):
 * a file or a repository and where it is laid in the sandbox. A repository's {@code authorization_token} is never in
 * it: the token is sealed in the vault and the row keeps only the secret's id ({@code aux}), so no answer can carry it.
 *
 * @param checkout null (the default branch), or {@code {"type":"branch","name":…}} / {@code {"type":"commit","sha":…}}
 */
record SessionMount(String id, String sessionId, String type, String fileId, String url, Map<String, Object> checkout, String mountPath,
                    String tokenSecretId, String createdAt, String updatedAt) {
    static final String KIND = "session_resource";
    static final String PREFIX = "sesrsc";
    static final String FILE = "file";
    static final String REPOSITORY = "github_repository";

    boolean isRepository() {
        return REPOSITORY.equals(type);
    }

    static SessionMount of(Resource row) {
        Map<String, Object> m = row.body();
        return new SessionMount(row.id(), row.parentId(), (String) m.get("type"), (String) m.get("file_id"), (String) m.get("url"),
                AgentSpec.map(m.get("checkout")), (String) m.get("mount_path"), row.aux(), (String) m.get("created_at"), (String) m.get("updated_at"));
    }

    SessionMount withToken(String secretId, String at) {
        return new SessionMount(id, sessionId, type, fileId, url, checkout, mountPath, secretId, createdAt, at);
    }

    /** The SDKs' shape; also what the row's body stores. */
    Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("type", type);
        if (isRepository()) {
            m.put("url", url);
            m.put("checkout", checkout == null ? null : new LinkedHashMap<>(checkout));
        } else {
            m.put("file_id", fileId);
        }
        m.put("mount_path", mountPath);
        m.put("created_at", createdAt);
        m.put("updated_at", updatedAt);
        return m;
    }
}
