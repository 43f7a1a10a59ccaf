package dev.paddock.agents;

import dev.paddock.agents.loop.AnthropicModelGateway;
import dev.paddock.agents.loop.ModelGateway;
import dev.paddock.core.agents.AgentsStore;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.host.RuntimeHost;
import java.time.Clock;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The Managed Agents layer, wired: one object per server holding the services the HTTP routes call. Build it with
 * the runtime host, the store's {@link AgentsStore} and the settings; close it at shutdown (before the host).
 */
public final class ManagedAgents implements AutoCloseable {
    private final AgentService agents;
    private final EnvironmentService environments;
    private final SessionService sessions;
    private final FileService files;
    private final SessionResourceService sessionResources;
    private final EventIntake intake;
    private final EventLog events;
    private final WorkQueue work;
    private final SessionEngine engine;
    private final AnthropicModelGateway gateway;

    public ManagedAgents(RuntimeHost host, AgentsStore store, AgentsConfig config, Clock clock) {
        this(host, store, config, clock, null);
    }

    /** As above; {@code model} replaces the Messages API client (tests), null: the configured endpoint. */
    public ManagedAgents(RuntimeHost host, AgentsStore store, AgentsConfig config, Clock clock, ModelGateway model) {
        this(host, store, config, clock, model, ResourceSettings.defaults());
    }

    /** As above, with what session resources need (the repository base url, the vault for their tokens). */
    public ManagedAgents(RuntimeHost host, AgentsStore store, AgentsConfig config, Clock clock, ModelGateway model, ResourceSettings resources) {
        Set<String> drivers = host.drivers().stream().map(Conformance::driver).collect(Collectors.toSet());
        this.gateway = model == null && config.hasModel() ? new AnthropicModelGateway(config.modelBaseUrl(), config.modelApiKey()) : null;
        ModelGateway chosen = model != null ? model : gateway;
        Supplier<ModelGateway> supplier = () -> chosen;
        this.agents = new AgentService(store.resources(), clock);
        this.environments = new EnvironmentService(store.resources(), new EnvironmentConfigs(config, host.config().defaultDriver(), drivers), clock);
        this.events = new EventLog(store.events());
        this.work = new WorkQueue(store.work(), config, clock);
        this.files = new FileService(store.resources(), host, clock);
        SessionMounts mounts = new SessionMounts(store.resources(), files, resources, clock);
        SessionSandboxes sandboxes = new SessionSandboxes(host, store.resources(), config, mounts, new ResourcePlacement(host, files, resources));
        SessionEnding ending = new SessionEnding(store.resources(), events, work, sandboxes, clock);
        this.engine = new SessionEngine(store.resources(), events, sandboxes, ending, supplier, config, clock);
        SessionFinder finder = new SessionFinder(store.resources(), environments);
        this.intake = new EventIntake(finder, events, engine, work);
        this.sessions = new SessionService(store.resources(), agents, environments, finder, intake, events, engine, work, ending, config, mounts, clock);
        this.sessionResources = new SessionResourceService(finder, store.resources(), mounts, sandboxes, events);
    }

    public AgentService agents() { return agents; }

    public EnvironmentService environments() { return environments; }

    public SessionService sessions() { return sessions; }

    public FileService files() { return files; }

    public SessionResourceService sessionResources() { return sessionResources; }

    public EventIntake intake() { return intake; }

    public EventLog events() { return events; }

    public WorkQueue work() { return work; }

    SessionEngine engine() { return engine; }

    @Override
    public void close() {
        engine.close();
        if (gateway != null) gateway.close();
    }
}
