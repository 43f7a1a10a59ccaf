package dev.paddock.agents;

import dev.paddock.core.PaddockException;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.SessionMovedException;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxState;
import dev.paddock.core.store.SandboxRecord;
import dev.paddock.access.Principal;
import dev.paddock.host.HandedOver;
import dev.paddock.host.RuntimeHost;
import dev.paddock.host.SandboxRequest;
import dev.paddock.toolset.AgentToolset;
import dev.paddock.toolset.ToolResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs a session's tool calls in its own Paddock sandbox, made on first use with the environment's driver and
 * network and remembered on the session; a sandbox that ended (lifetime, reaping) is replaced by a new one.
 */
public final class SessionSandboxes {
    /** How long a tool call waits for a sandbox being restored on this node from a lost node's checkpoint. */
    private static final Duration RESTORE_WAIT = Duration.ofMinutes(2);
    private final RuntimeHost host;
    private final ResourceStore store;
    private final AgentsConfig config;
    private final EnvironmentPackages packages;
    private final SessionSkills skills;
    private final SessionMounts mounts;
    private final ResourcePlacement placement;

    SessionSandboxes(RuntimeHost host, ResourceStore store, AgentsConfig config, SessionSkills skills, SessionMounts mounts,
                     ResourcePlacement placement) {
        this.host = host;
        this.store = store;
        this.config = config;
        this.packages = new EnvironmentPackages(host, config.packageMirrors());
        this.skills = skills;
        this.mounts = mounts;
        this.placement = placement;
    }

    /** The system prompt's part on the session agent's skills (where its environment puts them), or null. */
    String skillListing(Session session, Environment env) {
        return skills.listing(session.tenantId(), SessionResource.of(session).agent().skills(), env.selfHosted());
    }

    public ToolResult run(Session session, Environment env, String tool, Map<String, Object> input) {
        return run(session, env, tool, input, null);
    }

    /**
     * Runs a tool call for the session's loop running as {@code ownerId} (null: a server alone): a sandbox it makes is
     * recorded on the session only while it still owns the session ({@link SessionMovedException} otherwise, the
     * sandbox deleted again).
     */
    ToolResult run(Session session, Environment env, String tool, Map<String, Object> input, String ownerId) {
        Principal owner = owner(session);
        awaitRestore(owner, find(session.tenantId(), session.id()).orElse(session).sandboxId()); // not under the lock below
        // a first install can take minutes: it runs before, not under, the lock that makes session sandboxes
        if (!isLive(owner, session.sandboxId())) packages.prepare(owner, env.packages());
        Made made = ensureSandbox(session, env, owner, ownerId);
        // a clone can take minutes too: the resources are laid after, not under, that lock, before the first tool call
        if (made.fresh()) placeResources(session, env, owner, made.sandboxId());
        return new AgentToolset(host, owner, made.sandboxId()).execute(tool, input);
    }

    /** The session's sandbox; {@code fresh} when this call made it. */
    private record Made(String sandboxId, boolean fresh) {}

    private void placeResources(Session session, Environment env, Principal owner, String sandboxId) {
        List<SessionMount> resources = mounts.of(session.tenantId(), session.id());
        if (resources.isEmpty()) return;
        try {
            placement.place(owner, sandboxId, resources, runsOnHost(env));
        } catch (RuntimeException e) {
            host.delete(owner, sandboxId); // the next tool call makes a new one and tries again
            throw e;
        }
    }

    /** The session's live sandbox, if it has one. */
    public Optional<String> sandboxOf(String tenantId, String sessionId) {
        return find(tenantId, sessionId).map(Session::sandboxId)
                .filter(id -> isLive(new Principal(tenantId, "agents", false), id));
    }

    public void release(Session session) {
        if (session.sandboxId() == null) return;
        try {
            host.delete(owner(session), session.sandboxId());
        } catch (RuntimeException ignored) {
            // already gone
        }
    }

    /** A lost node's sandbox gone on elsewhere: the new sandbox and the owner id of the node that brings it back. */
    record Successor(String sandboxId, String ownerId) {}

    /** Where the session's sandbox went on when its node was lost and it had a checkpoint another node shares. */
    Optional<Successor> successor(Session session) {
        if (session.sandboxId() == null) return Optional.empty();
        Principal owner = owner(session);
        try {
            return HandedOver.successorOf(host.get(owner, session.sandboxId()))
                    .map(id -> host.get(owner, id)).filter(r -> !r.state().isTerminal())
                    .map(r -> new Successor(r.id(), r.fence().ownerId()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** A sandbox handed over from a lost node is restored by its new node shortly: a tool call waits for it. */
    private void awaitRestore(Principal owner, String sandboxId) {
        long deadline = System.nanoTime() + RESTORE_WAIT.toNanos();
        try {
            while (sandboxId != null && host.get(owner, sandboxId).state() == SandboxState.CREATING && System.nanoTime() < deadline) {
                Thread.sleep(250);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException ignored) {
            // gone: a new sandbox is made
        }
    }

    private synchronized Made ensureSandbox(Session session, Environment env, Principal owner, String ownerId) {
        Session current = find(session.tenantId(), session.id()).orElse(session);
        if (current.sandboxId() != null && isLive(owner, current.sandboxId())) return new Made(current.sandboxId(), false);
        String driver = env.sandboxFree() ? config.sandboxFreeDriver() : env.driver();
        NetworkPolicy network = env.sandboxFree() ? NetworkPolicy.NONE : env.network();
        Map<String, List<String>> wanted = env.sandboxFree() ? Map.of() : env.packages();
        SandboxRequest request = new SandboxRequest(driver, null, false, null, EnvironmentPackages.environment(wanted), network, null, null, null);
        SandboxRecord created = env.sandboxFree() ? host.createSandboxFree(owner, request) : host.create(owner, request);
        try {
            packages.install(owner, created.id(), wanted);
            skills.layInto(owner, created.id(), SessionResource.of(current).agent().skills());
        } catch (RuntimeException e) {
            host.delete(owner, created.id());
            throw e;
        }
        for (int attempt = 0; attempt < 5; attempt++) {
            Session latest = find(session.tenantId(), session.id()).orElseThrow();
            try {
                Resource row = latest.withSandbox(created.id()).row();
                if (ownerId == null) store.update(row);
                else store.updateAsOwner(ownerId, row);
                break;
            } catch (SessionMovedException e) {
                host.delete(owner, created.id()); // the session's new owner makes its own
                throw e;
            } catch (PaddockException e) {
                if (!"concurrent_update".equals(e.code())) throw e;
            }
        }
        return new Made(created.id(), true);
    }

    /** Lays a resource added to a running session into its live sandbox now; one without a sandbox gets it with its first. */
    void placeIfLive(Session session, Environment env, SessionMount mount) {
        Principal owner = owner(session);
        Optional<String> live = sandboxOf(session.tenantId(), session.id());
        live.ifPresent(id -> placement.place(owner, id, List.of(mount), runsOnHost(env)));
    }

    /** A session whose commands run on the Paddock host (sandbox-free): nothing is made outside its workspace. */
    private boolean runsOnHost(Environment env) {
        return env.sandboxFree() || config.sandboxFreeDriver().equals(env.driver());
    }

    private Optional<Session> find(String tenantId, String sessionId) {
        return store.find(Resource.SESSION, tenantId, sessionId).map(Session::new);
    }

    private boolean isLive(Principal owner, String sandboxId) {
        if (sandboxId == null) return false;
        try {
            return !host.get(owner, sandboxId).state().isTerminal();
        } catch (RuntimeException e) {
            return false;
        }
    }

    static Principal owner(Session session) {
        return new Principal(session.tenantId(), "agents", false);
    }
}
