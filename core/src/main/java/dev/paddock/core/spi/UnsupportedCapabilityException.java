package dev.paddock.core.spi;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/** A driver was asked for something its conformance record says it does not support. Thrown at once. */
public final class UnsupportedCapabilityException extends PaddockException {
    public UnsupportedCapabilityException(String driver, String capability) {
        super(ErrorCode.UNSUPPORTED_CAPABILITY,
                "the " + driver + " driver does not support " + capability + " (see GET /v1/drivers)");
    }
}
