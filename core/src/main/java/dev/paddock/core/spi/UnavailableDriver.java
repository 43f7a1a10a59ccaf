package dev.paddock.core.spi;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.conformance.Conformance;
import java.util.List;
import java.util.Optional;

/**
 * A driver this host knows but cannot run (no runsc, no Docker engine answering): listed with its claims and the
 * reason, so {@code paddock drivers} says what is missing; every create on it fails fast with that reason. It has
 * no sandboxes, and the host leaves the records of sandboxes made on it alone until it can run again.
 */
public final class UnavailableDriver implements SandboxDriver {
    private final Conformance record;
    private final String reason;

    public UnavailableDriver(Conformance record, String reason) {
        this.record = record;
        this.reason = reason;
    }

    @Override
    public String id() {
        return record.driver();
    }

    @Override
    public Conformance conformance() {
        return record;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.of(reason);
    }

    @Override
    public Limits limits(Limits requested) {
        throw refusal();
    }

    @Override
    public Sandbox create(SandboxSpec spec, Fence fence) {
        throw refusal();
    }

    @Override
    public Optional<Sandbox> attach(SandboxRef ref) {
        throw refusal();
    }

    @Override
    public List<SandboxRef> list() {
        return List.of();
    }

    @Override
    public void destroy(SandboxRef ref) {
        throw refusal();
    }

    @Override
    public Optional<Workspace> workspace(SandboxRef ref) {
        return Optional.empty();
    }

    @Override
    public void purge(SandboxRef ref) {
        throw refusal();
    }

    private PaddockException refusal() {
        return new PaddockException(ErrorCode.DRIVER_UNAVAILABLE, "driver '" + id() + "' cannot run on this host: " + reason);
    }
}
