package dev.paddock.agents;

import dev.paddock.agents.loop.AnthropicModelGateway;
import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.agents.mcp.McpSessions;
import dev.paddock.agents.mcp.McpSettings;
import dev.paddock.agents.skills.SkillArchives;
import dev.paddock.agents.skills.SkillLimits;
import dev.paddock.core.agents.AgentsStore;
import dev.paddock.core.agents.Resource;
import dev.paddock.core.agents.Session;
import dev.paddock.core.agents.SessionOwners;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.host.RuntimeHost;
import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The Managed Agents layer, wired: one object per server holding the services the HTTP routes call. Build it with
 * the runtime host, the store's {@link AgentsStore} and the settings; close it at shutdown (before the host).
 */
public final class ManagedAgents implements AutoCloseable {
    private final AgentService agents;
    private final SkillService skills;
    private final EnvironmentService environments;
    private final SessionService sessions;
    private final FileService files;
    private final SessionResourceService sessionResources;
    private final EventIntake intake;
    private final EventLog events;
    private final SessionSandboxes sessionSandboxes;
    private final WorkQueue work;
    private final SessionEngine engine;
    private final AnthropicModelGateway gateway;
    private final VaultService vaults;
    private final VaultCredentialService credentials;
    private final CredentialValidation validation;
    private final AgentsStore store;
    private final Clock clock;
    private volatile SessionOwnership ownership;

    public ManagedAgents(RuntimeHost host, AgentsStore store, AgentsConfig config, Clock clock) {
        this(host, store, config, clock, null);
    }

    /** As above; {@code model} replaces the Messages API client (tests), null: the configured endpoint. */
    public ManagedAgents(RuntimeHost host, AgentsStore store, AgentsConfig config, Clock clock, ModelGateway model) {
        this(host, store, config, clock, model, McpSettings.NONE, ResourceSettings.defaults());
    }

    /**
     * As above; {@code mcp} holds the cipher for vault credentials (the installation's vault) and whether MCP servers
     * may be on private addresses, {@code resources} what session resources need (the repository base url, the vault
     * for their tokens).
     */
    public ManagedAgents(RuntimeHost host, AgentsStore store, AgentsConfig config, Clock clock, ModelGateway model, McpSettings mcp,
                         ResourceSettings resources) {
        this.store = store;
        this.clock = clock;
        Set<String> drivers = host.drivers().stream().map(Conformance::driver).collect(Collectors.toSet());
        this.gateway = model == null && config.hasModel() ? new AnthropicModelGateway(config.modelBaseUrl(), config.modelApiKey()) : null;
        ModelGateway chosen = model != null ? model : gateway;
        Supplier<ModelGateway> supplier = () -> chosen;
        this.environments = new EnvironmentService(store.resources(), new EnvironmentConfigs(config, host.config().defaultDriver(), drivers), clock);
        this.skills = new SkillService(store.resources(), new SkillArchives(host.config().dataDir()), SkillLimits.DEFAULTS, environments,
                host::storedBytes, () -> host.config().tenantStorageBytes(), clock);
        host.countStoredBytes(skills::storedBytes);
        this.agents = new AgentService(store.resources(), skills, clock);
        this.events = new EventLog(store.events());
        this.work = new WorkQueue(store.work(), config, clock);
        SessionSkills sessionSkills = new SessionSkills(host, skills);
        this.files = new FileService(store.resources(), host, clock);
        SessionMounts mounts = new SessionMounts(store.resources(), files, resources, clock);
        SessionSandboxes sandboxes = new SessionSandboxes(host, store.resources(), config, sessionSkills, mounts,
                new ResourcePlacement(host, files, resources));
        this.sessionSandboxes = sandboxes;
        SessionEnding ending = new SessionEnding(store.resources(), events, work, sandboxes, clock);
        this.vaults = new VaultService(store.resources(), clock);
        this.credentials = new VaultCredentialService(store.resources(), vaults, mcp.credentialCipher(), clock);
        McpSessions mcpSessions = new McpSessions(mcp, credentials::forMcpServer, clock);
        this.validation = new CredentialValidation(credentials, mcpSessions, clock);
        this.engine = new SessionEngine(store.resources(), events, sandboxes, ending, supplier, mcpSessions, config, clock);
        SessionFinder finder = new SessionFinder(store.resources(), environments);
        this.intake = new EventIntake(finder, events, engine, work);
        this.sessions = new SessionService(store.resources(), agents, environments, vaults, finder, intake, events, engine, work, ending, config,
                mounts, clock, sessionSkills);
        this.sessionResources = new SessionResourceService(finder, store.resources(), mounts, sandboxes, events);
    }

    public AgentService agents() { return agents; }

    public SkillService skills() { return skills; }

    public EnvironmentService environments() { return environments; }

    public SessionService sessions() { return sessions; }

    public FileService files() { return files; }

    public SessionResourceService sessionResources() { return sessionResources; }

    public EventIntake intake() { return intake; }

    public EventLog events() { return events; }

    /** The live sandbox of a tenant's session, if it has one: where its tools run (on a cluster, which node serves its turns). */
    public Optional<String> sessionSandbox(String tenantId, String sessionId) {
        return sessionSandboxes.sandboxOf(tenantId, sessionId);
    }

    /**
     * Makes this server a node of a cluster for its sessions: each session's loop runs on one node at a time, its
     * owner ({@link SessionOwnership}). Call once, before the server takes requests.
     */
    public void joinCluster(ClusterMembership cluster) {
        SessionOwnership o = new SessionOwnership(store.owners(), store.resources(), events, sessionSandboxes, cluster, clock);
        ownership = o;
        engine.ownedThrough(o);
        o.start(engine);
    }

    /**
     * For a server alone (no cluster), once at start: the turns an earlier process of this server was running when it
     * stopped without settling them (killed) go on, as a lost node's do on a cluster: each session turns
     * rescheduling, its cut-off tool call is answered as cut off, and its loop runs the turn on.
     */
    public void resumeCutOffTurns() {
        for (SessionOwners.Owned o : store.owners().inFlight()) {
            store.resources().find(Resource.SESSION, o.tenantId(), o.sessionId()).map(Session::new)
                    .ifPresent(s -> CutOffTurns.rescheduled(store.resources(), events, clock, s));
            engine.wake(o.tenantId(), o.sessionId());
        }
    }

    /** A node of the cluster was marked lost: the sessions whose turns it ran go on on a live node. */
    public void nodeLost(String nodeId) {
        SessionOwnership o = ownership;
        if (o != null) o.nodeLost(nodeId, engine);
    }

    /** The node that runs a tenant's session when that is another live node (its writes go there). */
    public Optional<String> sessionNode(String tenantId, String sessionId) {
        SessionOwnership o = ownership;
        return o == null ? Optional.empty() : o.ownerElsewhere(tenantId, sessionId);
    }

    public WorkQueue work() { return work; }

    public VaultService vaults() { return vaults; }

    public VaultCredentialService credentials() { return credentials; }

    public CredentialValidation credentialValidation() { return validation; }

    SessionEngine engine() { return engine; }

    @Override
    public void close() {
        SessionOwnership o = ownership;
        if (o != null) o.close();
        engine.close();
        events.close();
        if (gateway != null) gateway.close();
    }
}
