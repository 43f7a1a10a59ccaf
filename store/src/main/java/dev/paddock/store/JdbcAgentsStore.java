package dev.paddock.store;

import dev.paddock.core.agents.AgentsStore;
import dev.paddock.core.agents.ResourceStore;
import dev.paddock.core.agents.SessionEventStore;
import dev.paddock.core.agents.SessionOwners;
import dev.paddock.core.agents.WorkStore;
import java.time.Clock;

/** The Managed Agents persistence on the same database as the rest of the {@link JdbcStore}. */
final class JdbcAgentsStore implements AgentsStore {
    private final ResourceStore resources;
    private final SessionEventStore events;
    private final WorkStore work;
    private final SessionOwners owners;

    JdbcAgentsStore(Database db, Clock clock) {
        this.resources = new JdbcResourceStore(db);
        this.events = new JdbcSessionEventStore(db, clock);
        this.work = new JdbcWorkStore(db);
        this.owners = new JdbcSessionOwners(db);
    }

    @Override
    public ResourceStore resources() { return resources; }

    @Override
    public SessionEventStore events() { return events; }

    @Override
    public WorkStore work() { return work; }

    @Override
    public SessionOwners owners() { return owners; }
}
