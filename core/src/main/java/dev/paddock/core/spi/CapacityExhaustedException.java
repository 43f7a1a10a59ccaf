package dev.paddock.core.spi;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/**
 * A driver has no room for another sandbox (uids, slots): the host may free some, e.g. by ending a pooled sandbox
 * that nobody has claimed yet, and try again.
 */
public final class CapacityExhaustedException extends PaddockException {
    public CapacityExhaustedException(ErrorCode code, String message) {
        super(code, message);
    }
}
