package dev.paddock.driver.bwrap;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.spi.CapacityExhaustedException;
import java.util.List;

/**
 * Reads why a sandbox did not start. A fork or a namespace refused for lack of room (the kernel's pid_max,
 * threads-max, a namespace count or memory) is the host at capacity, which a client should retry later and the host
 * may relieve by ending an unclaimed pooled sandbox; anything else is a failed start.
 */
final class StartFailure {
    /** strerror texts of EAGAIN, ENOSPC (a namespace limit) and ENOMEM, as the launcher and bwrap print them. */
    private static final List<String> OUT_OF_ROOM = List.of("Resource temporarily unavailable", "No space left on device", "Cannot allocate memory");

    private StartFailure() {}

    static PaddockException of(String message) {
        for (String sign : OUT_OF_ROOM) {
            if (message.contains(sign)) {
                return new CapacityExhaustedException(ErrorCode.HOST_AT_CAPACITY, message + " (the host is out of processes, namespaces or memory: "
                        + KernelLimits.read().describe() + ")");
            }
        }
        return new PaddockException(ErrorCode.SANDBOX_START_FAILED, message);
    }
}
