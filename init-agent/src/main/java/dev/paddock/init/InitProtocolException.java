package dev.paddock.init;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;

/** The sandbox's init agent could not be reached, refused a request, or sent something malformed. */
public final class InitProtocolException extends PaddockException {
    // 503, not 500: a dead or misbehaving sandbox is the sandbox's state, not a bug of the server's
    public InitProtocolException(ErrorCode code, String message) {
        super(code, message);
    }

    public InitProtocolException(ErrorCode code, String message, Throwable cause) {
        super(code, message, cause);
    }

    static InitProtocolException malformed(String what) {
        return new InitProtocolException(ErrorCode.SANDBOX_PROTOCOL_ERROR, "the sandbox agent sent a malformed " + what + "; the sandbox may be compromised or broken, terminate it");
    }

    static InitProtocolException unreachable(Throwable cause) {
        String why = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
        return new InitProtocolException(ErrorCode.SANDBOX_UNREACHABLE, "cannot reach the sandbox agent (" + why + "); the sandbox has probably ended", cause);
    }

    /** The agent took the request but did not answer in time: alive as far as we know, but frozen or overloaded. */
    static InitProtocolException noAnswer(String what) {
        return new InitProtocolException(ErrorCode.OPERATION_TIMEOUT, what + "; the sandbox may be frozen (a stopped init) or overloaded");
    }
}
