package dev.paddock.core.agents;

/** The persistence port of the Managed Agents layer. */
public interface AgentsStore {
    ResourceStore resources();

    SessionEventStore events();

    WorkStore work();

    /** Which node runs each session's loop (meaningful when several servers share the store). */
    SessionOwners owners();
}
