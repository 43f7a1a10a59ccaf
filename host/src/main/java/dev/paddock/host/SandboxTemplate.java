package dev.paddock.host;

import dev.paddock.core.store.SandboxRecord;
import java.util.Optional;

/**
 * A kind of sandbox, such as {@code browser}: a module adds one through {@link RuntimeHost#addTemplate} before the
 * host starts, and a create request picks it by {@link SandboxRequest#template() name}. The host applies it once per
 * create, records its name in the sandbox's spec (so "what kind is this" survives a restart and is read from the
 * record), and calls its hooks whichever way the sandbox was created or ended: REST, MCP, the agents layer or the
 * sweeper. Hooks run on the caller's thread and outside the sandbox's lock; what they throw is logged, never passed
 * on, since the lifecycle change they follow has already happened.
 */
public interface SandboxTemplate {

    /** The name requests give; lower case, unique on the host. */
    String name();

    /**
     * The request as this kind wants it (limits raised, environment set from the request's template options …);
     * called before the host checks or starts anything. Throws a {@code PaddockException} for what the kind refuses.
     */
    SandboxRequest apply(SandboxRequest request);

    /** Sandboxes of this kind to keep started ahead of demand; its template must name this template. */
    default Optional<WarmProfile> warmProfile() {
        return Optional.empty();
    }

    /**
     * Environment names this kind sets itself: a create of any kind that sets one is refused ({@code reserved_env}),
     * so no request can pass for something the template decides.
     */
    default Optional<String> reservedEnvPrefix() {
        return Optional.empty();
    }

    /** Whether a delete that does not say otherwise also purges the sandbox's files: for kinds whose files must not outlive the task. */
    default boolean purgesOnDelete() {
        return false;
    }

    /** After a sandbox of this kind is running; start long work in the background, the create's caller is waiting. */
    default void onCreated(SandboxRecord sandbox) {}

    /**
     * After a sandbox of this kind ended, however it ended (deleted, expired, reaped, failed: {@code purged} false),
     * and again after its files were purged ({@code purged} true).
     */
    default void onDeleted(SandboxRecord sandbox, boolean purged) {}
}
