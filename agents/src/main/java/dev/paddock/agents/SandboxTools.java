package dev.paddock.agents;

import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.access.Principal;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import dev.paddock.toolset.AgentToolset;
import dev.paddock.toolset.ToolResult;
import java.util.Map;
import java.util.Optional;

/**
 * Runs a session's tool calls in its own Paddock sandbox, made on first use with the environment's driver and
 * network and remembered on the session; a sandbox that ended (lifetime, reaping) is replaced by a new one.
 */
public final class SandboxTools {
    private final RuntimeHost host;
    private final ResourceStore store;
    private final AgentsConfig config;
    private final EnvironmentPackages packages;

    public SandboxTools(RuntimeHost host, ResourceStore store, AgentsConfig config) {
        this.host = host;
        this.store = store;
        this.config = config;
        this.packages = new EnvironmentPackages(host, config.packageMirrors());
    }

    public ToolResult run(Resource session, Map<String, Object> envConfig, String tool, Map<String, Object> input) {
        Principal owner = owner(session);
        // a first install can take minutes: it runs before, not under, the lock that makes session sandboxes
        if (!isLive(owner, session.aux())) packages.prepare(owner, EnvironmentPackages.wanted(envConfig));
        String sandboxId = ensureSandbox(session, envConfig, owner);
        return new AgentToolset(host, owner, sandboxId).execute(tool, input);
    }

    /** The session's live sandbox, if it has one. */
    public Optional<String> sandboxOf(String tenantId, String sessionId) {
        return store.find(Resource.SESSION, tenantId, sessionId).map(Resource::aux)
                .filter(id -> isLive(new Principal(tenantId, "agents", false), id));
    }

    public void release(Resource session) {
        if (session.aux() == null) return;
        try {
            host.delete(owner(session), session.aux());
        } catch (RuntimeException ignored) {
            // already gone
        }
    }

    private synchronized String ensureSandbox(Resource session, Map<String, Object> envConfig, Principal owner) {
        Resource current = store.find(Resource.SESSION, session.tenantId(), session.id()).orElse(session);
        if (current.aux() != null && isLive(owner, current.aux())) return current.aux();
        boolean sandboxFree = EnvironmentConfigs.NONE.equals(envConfig.get("type"));
        String driver = sandboxFree ? config.sandboxFreeDriver() : (String) envConfig.get(EnvironmentConfigs.DRIVER_FIELD);
        NetworkPolicy network = sandboxFree ? NetworkPolicy.NONE : EnvironmentConfigs.network(envConfig);
        Map<String, java.util.List<String>> wanted = sandboxFree ? Map.of() : EnvironmentPackages.wanted(envConfig);
        SandboxRequest request = new SandboxRequest(driver, null, false, null, EnvironmentPackages.environment(wanted), network, null, null, null);
        SandboxRecord created = sandboxFree ? host.createSandboxFree(owner, request) : host.create(owner, request);
        try {
            packages.install(owner, created.id(), wanted);
        } catch (RuntimeException e) {
            host.delete(owner, created.id());
            throw e;
        }
        for (int attempt = 0; attempt < 5; attempt++) {
            Resource latest = store.find(Resource.SESSION, session.tenantId(), session.id()).orElseThrow();
            try {
                store.update(latest.withAux(created.id()));
                break;
            } catch (dev.paddock.core.PaddockException e) {
                if (!"concurrent_update".equals(e.code())) throw e;
            }
        }
        return created.id();
    }

    private boolean isLive(Principal owner, String sandboxId) {
        if (sandboxId == null) return false;
        try {
            return !host.get(owner, sandboxId).state().isTerminal();
        } catch (RuntimeException e) {
            return false;
        }
    }

    static Principal owner(Resource session) {
        return new Principal(session.tenantId(), "agents", false);
    }
}
