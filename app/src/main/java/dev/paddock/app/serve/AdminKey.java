package dev.paddock.app.serve;

import dev.paddock.access.ApiKeys;
import dev.paddock.core.PaddockException;
import java.util.Optional;

/** Makes sure an admin can sign in: registers {@code PADDOCK_API_KEY}, or creates a key on first start. */
final class AdminKey {
    private AdminKey() {}

    /** The secret of a key created now (to be shown once), or empty when none was created. */
    static Optional<String> ensure(ApiKeys keys, DataDir dir, String configured) {
        if (configured != null) {
            try {
                keys.register(ApiKeys.DEFAULT_TENANT, "admin (PADDOCK_API_KEY)", configured, true);
            } catch (PaddockException e) {
                throw new StartupException("PADDOCK_API_KEY cannot be used: " + e.getMessage());
            }
            return Optional.empty();
        }
        if (keys.any()) return Optional.empty();
        ApiKeys.Created created = keys.create(ApiKeys.DEFAULT_TENANT, "admin", true);
        dir.writeAdminKey(created.secret());
        return Optional.of(created.secret());
    }
}
