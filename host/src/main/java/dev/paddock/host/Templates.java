package dev.paddock.host;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.store.SandboxRecord;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host's {@link SandboxTemplate}s by name: applies the one a create request names, refuses environment names a
 * template keeps for itself, and passes lifecycle changes to the template a sandbox's spec records, each hook's
 * failure logged and kept from the caller.
 */
final class Templates {
    private static final Logger log = LoggerFactory.getLogger(Templates.class);
    private final Map<String, SandboxTemplate> byName = new ConcurrentHashMap<>();

    void add(SandboxTemplate template) {
        if (byName.putIfAbsent(template.name(), template) != null) {
            throw new IllegalArgumentException("a template named '" + template.name() + "' is already registered");
        }
    }

    Optional<SandboxTemplate> find(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(byName.get(name));
    }

    /** The request as its template shapes it; unchanged when it names none. */
    SandboxRequest apply(SandboxRequest request) {
        requireFreeEnv(request);
        if (request.template() == null) return request;
        SandboxTemplate t = find(request.template()).orElseThrow(() -> new PaddockException(ErrorCode.UNKNOWN_TEMPLATE,
                "\"template\" must be one of " + new TreeSet<>(byName.keySet()) + " or left out"));
        // the name stays the request's whatever the template returns: it is what the spec records
        return t.apply(request).withTemplate(t.name(), request.templateOptions());
    }

    private void requireFreeEnv(SandboxRequest request) {
        if (request.env() == null || request.env().isEmpty()) return;
        for (SandboxTemplate t : byName.values()) {
            Optional<String> prefix = t.reservedEnvPrefix();
            if (prefix.isPresent() && request.env().keySet().stream().anyMatch(k -> k.startsWith(prefix.get()))) {
                throw new PaddockException(ErrorCode.RESERVED_ENV, "environment names starting with " + prefix.get() + " are reserved for the '"
                        + t.name() + "' template; ask for it with \"template\": \"" + t.name() + "\" and its options");
            }
        }
    }

    /** Whether a delete that names no purge purges this sandbox. */
    boolean purgesOnDelete(SandboxRecord r) {
        return of(r).map(SandboxTemplate::purgesOnDelete).orElse(false);
    }

    void created(SandboxRecord r) {
        hook(r, "onCreated", t -> t.onCreated(r));
    }

    void deleted(SandboxRecord r, boolean purged) {
        hook(r, "onDeleted", t -> t.onDeleted(r, purged));
    }

    private Optional<SandboxTemplate> of(SandboxRecord r) {
        return find(r.spec().template());
    }

    private void hook(SandboxRecord r, String name, Consumer<SandboxTemplate> call) {
        of(r).ifPresent(t -> {
            try {
                call.accept(t);
            } catch (RuntimeException e) {
                log.warn("{} of template '{}' failed for {}: {}", name, t.name(), r.id(), e.getMessage());
            }
        });
    }
}
