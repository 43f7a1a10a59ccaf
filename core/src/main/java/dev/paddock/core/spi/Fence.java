package dev.paddock.core.spi;

/**
 * Ownership token of a sandbox: which host instance holds it and at which generation. The store swaps it with
 * compare-and-set; every mutating store call presents the fence it holds and fails with {@code fence_lost}
 * when a newer one exists.
 */
public record Fence(String ownerId, long generation) {
    public Fence {
        if (ownerId == null || ownerId.isBlank()) throw new IllegalArgumentException("ownerId is required");
        if (generation < 1) throw new IllegalArgumentException("generation starts at 1");
    }

    public Fence next(String newOwner) {
        return new Fence(newOwner, generation + 1);
    }
}
