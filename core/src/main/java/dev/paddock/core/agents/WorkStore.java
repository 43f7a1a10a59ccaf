package dev.paddock.core.agents;

import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/** The self-hosted work queue. Every change compares and sets {@link WorkItem#revision()}. */
public interface WorkStore {
    void insert(WorkItem item);

    Optional<WorkItem> find(String environmentId, String workId);

    /** The live (not stopped) items of a session. */
    List<WorkItem> liveForSession(String sessionId);

    /**
     * Claims the oldest claimable item of the environment in one transaction: a queued one, one whose lease ran out
     * before {@code now}, or one claimed but not acknowledged before {@code unackedBefore} (may be null). The
     * claimed item is returned by {@code claim}, which must give the new state of the chosen item.
     */
    Optional<WorkItem> claim(String environmentId, Instant now, Instant unackedBefore, UnaryOperator<WorkItem> claim);

    /** Stores {@code updated} if its revision is still current; false (nothing written) otherwise. */
    boolean compareAndSet(WorkItem updated);

    /** Newest first. */
    Page<WorkItem> list(String environmentId, PageRequest page);

    /** Number of items per state. */
    Map<String, Long> countByState(String environmentId);

    /** Creation time of the oldest queued item, if any. */
    Optional<Instant> oldestQueued(String environmentId);
}
