package dev.paddock.app.client;

/** No Paddock server answered at the configured URL. */
public final class UnreachableException extends RuntimeException {
    public UnreachableException(String url) {
        super("cannot reach Paddock at " + url + ": is `paddock serve` running?");
    }
}
