package dev.paddock.driver.bwrap.init;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;

/** The sandbox's init agent could not be reached, refused a request, or sent something malformed. */
public final class InitProtocolException extends PaddockException {
    // 503, not 500: a dead or misbehaving sandbox is the sandbox's state, not a bug of the server's
    public InitProtocolException(String code, String message) {
        super(ErrorType.UNAVAILABLE, code, message);
    }

    public InitProtocolException(String code, String message, Throwable cause) {
        super(ErrorType.UNAVAILABLE, code, message, cause);
    }

    static InitProtocolException malformed(String what) {
        return new InitProtocolException("sandbox_protocol_error", "the sandbox agent sent a malformed " + what + "; the sandbox may be compromised or broken, terminate it");
    }

    static InitProtocolException unreachable(Throwable cause) {
        return new InitProtocolException("sandbox_unreachable", "cannot reach the sandbox agent (" + cause.getMessage() + "); the sandbox has probably ended", cause);
    }
}
