package dev.paddock.egress.proxy;

import java.io.IOException;

/** A request or response that breaks HTTP/1.1 rules; {@code status} is what the client gets, {@code code} goes to the audit. */
final class ProtocolException extends IOException {
    final int status;
    final String code;

    ProtocolException(int status, String code, String message) {
        super(message, null);
        this.status = status;
        this.code = code;
    }

    @Override
    public synchronized Throwable fillInStackTrace() { return this; }
}
