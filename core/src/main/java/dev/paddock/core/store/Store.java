package dev.paddock.core.store;

/** The persistence port. One implementation per database; all of it is transactional and safe across threads. */
public interface Store extends AutoCloseable {
    SandboxStore sandboxes();

    EventStore events();

    CheckpointStore checkpoints();

    ApiKeyStore apiKeys();

    /**
     * Whether the store can serve now, for a readiness check: returns when a short query answered and writes are not
     * stopped, else throws {@code store_unavailable} or {@code store_writes_stopped}. It may block as long as the
     * database takes to give a connection: callers that must not hang bound the wait themselves.
     */
    void checkReady();

    @Override
    void close();
}
