package dev.paddock.server.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.paddock.core.spi.Limits;
import dev.paddock.core.spi.NetworkPolicy;
import dev.paddock.core.spi.SandboxStatus;
import dev.paddock.core.store.SandboxRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * The sandbox object of the API. {@code template} appears for a sandbox of a kind (such as {@code browser});
 * {@code status} only on a single-sandbox read while it runs.
 */
public record SandboxView(
        String type,
        String id,
        String driver,
        @JsonInclude(JsonInclude.Include.NON_NULL) String template,
        String state,
        String image,
        boolean writableRootfs,
        Limits limits,
        Network network,
        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Credential> credentials,
        Map<String, String> env,
        Long timeoutSeconds,
        Instant expiresAt,
        Idle idle,
        Instant createdAt,
        Instant updatedAt,
        Instant lastActivityAt,
        String stateReason,
        @JsonInclude(JsonInclude.Include.NON_NULL) Status status) {

    public record Network(String type, @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> allowedHosts, boolean allowPackageManagers) {}

    /** A credential rule as given at create: which secret goes where. Never a value, never a placeholder. */
    public record Credential(String secretId, List<String> hosts, @JsonInclude(JsonInclude.Include.NON_NULL) String header,
                             @JsonInclude(JsonInclude.Include.NON_NULL) String template, @JsonInclude(JsonInclude.Include.NON_NULL) String env) {}

    public record Idle(Long suspendAfterSeconds, Long terminateAfterSeconds) {}

    /** Figures a driver cannot measure are -1; {@code cpuNanos} is the CPU time the sandbox used since it started. */
    public record Status(long memoryBytes, int pids, long oomKills, boolean frozen, long cpuNanos) {}

    public static SandboxView of(SandboxRecord r) {
        return of(r, null);
    }

    public static SandboxView of(SandboxRecord r, SandboxStatus s) {
        NetworkPolicy net = r.spec().network();
        return new SandboxView("sandbox", r.id(), r.driver(), r.spec().template(), r.state().wireName(), r.spec().image(),
                r.spec().writableRootfs(), r.spec().limits(),
                new Network(net.mode().name().toLowerCase(), net.allowedHosts(), net.allowPackageManagers()),
                r.spec().credentials().stream().map(c -> new Credential(c.secretId(), c.hosts(), c.header(), c.template(), c.envVar())).toList(),
                r.spec().env(),
                seconds(r.timeout()), r.expiresAt(),
                new Idle(seconds(r.idleSuspendAfter()), seconds(r.idleTerminateAfter())),
                r.createdAt(), r.updatedAt(), r.lastActivityAt(), r.stateReason(),
                s == null ? null : new Status(s.memoryBytes(), s.pids(), s.oomKills(), s.frozen(), s.cpuNanos()));
    }

    private static Long seconds(Duration d) {
        return d == null ? null : d.toSeconds();
    }
}
