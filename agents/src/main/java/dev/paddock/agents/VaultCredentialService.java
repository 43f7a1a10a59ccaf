package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.agents.mcp.McpCredentialSource;
import dev.paddock.agents.mcp.McpUrls;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.Ids;
import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceFilter;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.egress.SecretCipher;
import dev.paddock.core.egress.SecretValue;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
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
 * A vault's credentials: the token Paddock sends as {@code Authorization: Bearer} to one MCP server URL. The token is
 * sealed with the installation's vault key into the row's private column and is never part of an answer, an event
 * or a log line; only {@link #forMcpServer} opens it, for the agent loop's MCP connection. A vault holds at most one
 * live credential per MCP server URL.
 */
public final class VaultCredentialService {
    static final String PREFIX = "vcrd";
    static final String KIND = "vault_credential";
    private static final Set<String> CREATE_FIELDS = Set.of("auth", "display_name", "metadata");

    private final ResourceStore store;
    private final VaultService vaults;
    private final SecretCipher cipher;
    private final Clock clock;

    /** {@code cipher} null: this server has no vault key, so credentials cannot be stored. */
    public VaultCredentialService(ResourceStore store, VaultService vaults, SecretCipher cipher, Clock clock) {
        this.store = store;
        this.vaults = vaults;
        this.cipher = cipher;
        this.clock = clock;
    }

    public Map<String, Object> create(Principal p, String vaultId, Map<String, Object> body) {
        Callers.requireApiKey(p, "create vault credentials");
        Resource vault = vaults.find(p.tenantId(), vaultId);
        if (vault.archivedAt() != null) throw new PaddockException(ErrorCode.VAULT_ARCHIVED, "vault " + vaultId + " is archived and takes no new credentials");
        Fields.allowOnly(body, CREATE_FIELDS, "");
        CredentialAuth.Created auth = CredentialAuth.create(Fields.object(body.get("auth"), "auth"), clock.instant());
        Instant now = clock.instant();
        String id = Ids.newId(PREFIX, now);
        Map<String, Object> wire = new LinkedHashMap<>();
        wire.put("id", id);
        wire.put("type", "vault_credential");
        wire.put("vault_id", vaultId);
        wire.put("display_name", Fields.optionalString(body, "display_name", 255));
        wire.put("auth", auth.response());
        wire.put("metadata", Fields.metadata(body.get("metadata"), "metadata"));
        wire.put("created_at", Times.iso(now));
        wire.put("updated_at", Times.iso(now));
        wire.put("archived_at", null);
        String sealed = seal(p.tenantId(), id, auth.token());
        Resource r = new Resource(KIND, id, p.tenantId(), uniqueKey(vaultId, auth.mcpServerUrl()), null, vaultId, null, sealed, 0, 0, now, now, null, wire);
        try {
            store.insert(r);
        } catch (PaddockException e) {
            if (!"duplicate_name".equals(e.code())) throw e;
            throw new PaddockException(ErrorCode.DUPLICATE_CREDENTIAL, "vault " + vaultId + " already holds a credential for "
                    + auth.mcpServerUrl() + "; update or archive that one");
        }
        return wire;
    }

    public Map<String, Object> get(Principal p, String vaultId, String id) {
        Callers.requireApiKey(p, "read vault credentials");
        return find(p.tenantId(), vaultId, id).body();
    }

    public ListResult list(Principal p, String vaultId, PageRequest page, boolean includeArchived) {
        Callers.requireApiKey(p, "list vault credentials");
        vaults.find(p.tenantId(), vaultId);
        Page<Resource> rows = store.list(KIND, p.tenantId(), new ResourceFilter(includeArchived, vaultId, null, List.of(), true), page);
        return ListResult.of(rows.map(Resource::body), page);
    }

    public Map<String, Object> update(Principal p, String vaultId, String id, Map<String, Object> body) {
        Callers.requireApiKey(p, "update vault credentials");
        Fields.allowOnly(body, CREATE_FIELDS, "");
        Resource r = find(p.tenantId(), vaultId, id);
        if (r.archivedAt() != null) throw new PaddockException(ErrorCode.CREDENTIAL_ARCHIVED, "credential " + id + " is archived and cannot be updated");
        Map<String, Object> wire = new LinkedHashMap<>(r.body());
        String sealed = r.aux();
        Map<String, Object> authPatch = Fields.object(body.get("auth"), "auth");
        if (authPatch != null) {
            CredentialAuth.Updated auth = CredentialAuth.update(AgentSpec.map(wire.get("auth")), authPatch, clock.instant());
            wire.put("auth", auth.response());
            if (auth.token() != null) sealed = seal(p.tenantId(), id, auth.token());
        }
        if (body.get("display_name") != null) wire.put("display_name", Fields.requiredString(body, "display_name", 255));
        if (body.get("metadata") != null) {
            wire.put("metadata", Fields.patchMetadata(Fields.storedMetadata(wire.get("metadata")), body.get("metadata"), "metadata"));
        }
        Instant now = clock.instant();
        wire.put("updated_at", Times.iso(now));
        return store.update(r.withBody(wire, now).withAux(sealed)).body();
    }

    /** Archives the credential: it is kept for reading but never sent again, and its URL is free for a new one. */
    public Map<String, Object> archive(Principal p, String vaultId, String id) {
        Callers.requireApiKey(p, "archive vault credentials");
        Resource r = find(p.tenantId(), vaultId, id);
        if (r.archivedAt() != null) return r.body();
        Instant now = clock.instant();
        Map<String, Object> wire = new LinkedHashMap<>(r.body());
        wire.put("archived_at", Times.iso(now));
        wire.put("updated_at", Times.iso(now));
        // the sealed token is dropped: an archived credential is never sent again
        return store.update(r.archived(now).withUniqueKey(null).withAux(null).withBody(wire, now)).body();
    }

    public Map<String, Object> delete(Principal p, String vaultId, String id) {
        Callers.requireApiKey(p, "delete vault credentials");
        find(p.tenantId(), vaultId, id);
        store.delete(KIND, p.tenantId(), id);
        return new Deleted(id, "vault_credential_deleted").toWire();
    }

    /** A credential's MCP server URL and its token (empty once archived), for a live probe. */
    record Probed(String mcpServerUrl, Optional<SecretValue> token) {}

    Probed forProbe(Principal p, String vaultId, String id) {
        Callers.requireApiKey(p, "validate vault credentials");
        Resource r = find(p.tenantId(), vaultId, id);
        String url = String.valueOf(AgentSpec.map(r.body().get("auth")).get("mcp_server_url"));
        if (r.aux() == null) return new Probed(url, Optional.empty());
        return new Probed(url, Optional.of(requireCipher().open(p.tenantId(), r.id(), Base64.getDecoder().decode(r.aux()))));
    }

    void deleteAll(String tenantId, String vaultId) {
        while (true) {
            Page<Resource> rows = store.list(KIND, tenantId, new ResourceFilter(true, vaultId, null, List.of(), false), new PageRequest(100, null, null));
            if (rows.data().isEmpty()) return;
            for (Resource r : rows.data()) store.delete(KIND, tenantId, r.id());
        }
    }

    /**
     * The credential for an MCP server from the first of {@code vaultIds} (a session's, in order) that holds a live one
     * for {@code url}; empty when none does. A vault deleted or archived since the session started is skipped.
     */
    public Optional<McpCredentialSource.Token> forMcpServer(String tenantId, List<String> vaultIds, String url) {
        String match = McpUrls.matchKey(url);
        if (match == null) return Optional.empty();
        for (String vaultId : vaultIds) {
            Optional<Resource> vault = store.find(VaultService.KIND, tenantId, vaultId);
            if (vault.isEmpty() || vault.get().archivedAt() != null) continue;
            String key = uniqueKey(vaultId, url);
            Optional<Resource> hit = store.findByUniqueKey(KIND, key).filter(r -> r.tenantId().equals(tenantId) && r.archivedAt() == null);
            if (hit.isEmpty() || hit.get().aux() == null) continue;
            Resource r = hit.get();
            SecretValue token = requireCipher().open(tenantId, r.id(), Base64.getDecoder().decode(r.aux()));
            Object expires = AgentSpec.map(r.body().get("auth")).get("expires_at");
            return Optional.of(new McpCredentialSource.Token(r.id(), token, expires instanceof String s ? Instant.parse(s) : null));
        }
        return Optional.empty();
    }

    private String seal(String tenantId, String id, SecretValue token) {
        return Base64.getEncoder().encodeToString(requireCipher().seal(tenantId, id, token));
    }

    private SecretCipher requireCipher() {
        if (cipher == null) {
            throw new PaddockException(ErrorCode.VAULT_UNAVAILABLE, "this Paddock server has no vault key, so it cannot store or use credentials");
        }
        return cipher;
    }

    private Resource find(String tenantId, String vaultId, String id) {
        vaults.find(tenantId, vaultId);
        ResourceIds.require(PREFIX, id, "credential_id");
        return store.find(KIND, tenantId, id).filter(r -> vaultId.equals(r.parentId()))
                .orElseThrow(() -> PaddockException.notFound("vault credential", id));
    }

    /** One live credential per vault and MCP server URL (as {@link McpUrls#matchKey} compares them). */
    static String uniqueKey(String vaultId, String url) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(McpUrls.matchKey(url).getBytes(StandardCharsets.UTF_8));
            return vaultId + ":" + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
