package dev.paddock.egress.policy;

/** A destination refused by {@link AddressGuard}; {@code reason} is a stable code such as {@code blocked_address_private}. */
public final class BlockedAddressException extends Exception {
    private final String reason;

    BlockedAddressException(String reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public String reason() { return reason; }
}
