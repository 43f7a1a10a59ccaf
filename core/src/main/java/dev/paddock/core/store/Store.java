package dev.paddock.core.store;

/** The persistence port. One implementation per database; all of it is transactional and safe across threads. */
public interface Store extends AutoCloseable {
    SandboxStore sandboxes();

    EventStore events();

    CheckpointStore checkpoints();

    ApiKeyStore apiKeys();

    @Override
    void close();
}
