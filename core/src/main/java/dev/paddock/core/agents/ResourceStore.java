package dev.paddock.core.agents;

import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.util.Optional;

/** Managed Agents resources, tenant-scoped. Updates compare and set {@link Resource#revision()}. */
public interface ResourceStore {
    /**
     * Inserts a resource. A resource of the same kind and tenant with the same non-null unique key makes this fail
     * with a conflict ({@code duplicate_name}); nothing is written then.
     */
    void insert(Resource resource);

    Optional<Resource> find(String kind, String tenantId, String id);

    /** Looks a resource up by its unique key across tenants (environment keys by secret hash). */
    Optional<Resource> findByUniqueKey(String kind, String uniqueKey);

    /**
     * Stores {@code updated} if the stored revision is still {@code updated.revision()}; returns it with the next
     * revision. Throws a conflict ({@code concurrent_update}) when someone else updated it first, and a conflict
     * ({@code duplicate_name}) when its unique key is taken.
     */
    Resource update(Resource updated);

    /**
     * Stores a session row like {@link #update} if {@code ownerId} still owns the session ({@link SessionOwners}):
     * the owner check is part of the same statement, so a claim of the session cannot fall between them. Throws
     * {@link SessionMovedException} when another node owns it now or it is gone.
     */
    Resource updateAsOwner(String ownerId, Resource updated);

    Page<Resource> list(String kind, String tenantId, ResourceFilter filter, PageRequest page);

    /** Deletes the resource and, for a session, its events. Returns false when there was none. */
    boolean delete(String kind, String tenantId, String id);
}
