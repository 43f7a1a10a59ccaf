package dev.paddock.server.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.paddock.core.conformance.Conformance;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.store.ApiKey;
import dev.paddock.core.store.CheckpointRecord;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.SandboxEvent;
import dev.paddock.host.RuntimeHost;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The small response objects of the API, each exactly as docs/API.md names its fields. */
public final class Views {
    private Views() {}

    public record ListPage<T>(List<T> data, boolean hasMore, String firstId, String lastId) {
        public static <S, T> ListPage<T> of(Page<S> page, Function<S, T> f) {
            return new ListPage<>(page.data().stream().map(f).toList(), page.hasMore(), page.firstId(), page.lastId());
        }
    }

    /** An unpaged list: {@code {"data": […]}}. */
    public record DataList<T>(List<T> data) {}

    public record Checkpoint(String id, String sandboxId, String kind, long sizeBytes, String sha256, Instant createdAt) {
        public static Checkpoint of(CheckpointRecord c) {
            return new Checkpoint(c.id(), c.sandboxId(), c.kind(), c.sizeBytes(), c.sha256(), c.createdAt());
        }
    }

    public record Event(String id, String type, Instant at, Map<String, Object> data) {
        public static Event of(SandboxEvent e) {
            return new Event(e.id(), e.type(), e.at(), e.data());
        }
    }

    public record Key(String id, String name, String tenantId, String prefix, boolean admin, Instant createdAt) {
        public static Key of(ApiKey k) {
            return new Key(k.id(), k.name(), k.tenantId(), k.prefix(), k.admin(), k.createdAt());
        }
    }

    /** A key as created: the only time the secret is shown. */
    public record CreatedKey(String id, String name, String tenantId, boolean admin, String key) {}

    public record ExecExit(int exitCode, int signal, boolean timedOut, boolean oomKilled, long durationMs) {
        public static ExecExit of(ExecResult r) {
            return new ExecExit(r.exitCode(), r.signal(), r.timedOut(), r.oomKilled(), r.duration() == null ? 0 : r.duration().toMillis());
        }
    }

    public record ExecAnswer(int exitCode, int signal, boolean timedOut, boolean oomKilled, long durationMs,
                             String stdout, String stderr, boolean stdoutTruncated, boolean stderrTruncated) {}

    public record Health(String status, String version, List<String> drivers) {}

    /** A driver's conformance record with whether it can run on this host, and why not where it cannot. */
    public record Driver(@JsonUnwrapped Conformance conformance, boolean available, @JsonInclude(JsonInclude.Include.NON_NULL) String unavailableReason) {
        public static Driver of(RuntimeHost.DriverStatus s) {
            return new Driver(s.conformance(), s.available(), s.unavailableReason());
        }
    }

    public record Chunk(String dataBase64) {}
}
