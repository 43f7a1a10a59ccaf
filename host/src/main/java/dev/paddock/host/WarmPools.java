package dev.paddock.host;

import dev.paddock.core.spi.CapacityExhaustedException;
import dev.paddock.core.spi.Fence;
import dev.paddock.core.spi.Sandbox;
import dev.paddock.core.spi.SandboxDriver;
import dev.paddock.core.spi.SandboxSpec;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The host's {@link WarmPool}s, one per {@link WarmProfile}: a create takes a started sandbox from the first pool
 * that fits its request and has one, and a driver out of capacity gets room from sandboxes that wait unclaimed.
 */
final class WarmPools implements AutoCloseable {
    /** A claimed pooled sandbox and the fence it was started with, which its record keeps. */
    record Claim(WarmPool.Entry entry, Fence fence) {}

    private final List<WarmPool> pools = new CopyOnWriteArrayList<>();

    void add(WarmPool pool) {
        pools.add(pool);
    }

    /** Fills every pool in the background. */
    void refill() {
        pools.forEach(WarmPool::refillAsync);
    }

    /** A started sandbox for the request, made the caller's by {@code activate}; empty when no pool fits or has one. */
    Optional<Claim> claim(SandboxDriver driver, SandboxRequest request, Consumer<WarmPool.Entry> activate) {
        for (WarmPool pool : pools) {
            if (!pool.fits(driver, request)) continue;
            Optional<WarmPool.Entry> entry = pool.claim(activate);
            if (entry.isPresent()) return Optional.of(new Claim(entry.get(), pool.fence()));
        }
        return Optional.empty();
    }

    /** Creates on the driver; when it is out of capacity, pooled sandboxes that nobody claimed yet give theirs up first. */
    Sandbox create(SandboxDriver driver, SandboxSpec spec, Fence fence) {
        while (true) {
            try {
                return driver.create(spec, fence);
            } catch (CapacityExhaustedException full) {
                boolean yielded = pools.stream().filter(p -> p.driverId().equals(driver.id())).anyMatch(WarmPool::yieldOne);
                if (!yielded) throw full;
            }
        }
    }

    int available() {
        return pools.stream().mapToInt(WarmPool::available).sum();
    }

    int available(String name) {
        return pools.stream().filter(w -> w.name().equals(name)).mapToInt(WarmPool::available).sum();
    }

    /** The ids of every sandbox waiting in a pool. */
    Set<String> waitingIds() {
        Set<String> ids = new HashSet<>();
        pools.forEach(p -> ids.addAll(p.waitingIds()));
        return ids;
    }

    List<String> names() {
        return pools.stream().map(WarmPool::name).toList();
    }

    /** Pooled sandboxes have no record: they are ended rather than left to the next host's reaper. */
    @Override
    public void close() {
        pools.forEach(WarmPool::close);
    }
}
