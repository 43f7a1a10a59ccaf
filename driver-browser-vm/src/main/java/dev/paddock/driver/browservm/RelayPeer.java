package dev.paddock.driver.browservm;

/** The transport under one relay connection (a WebSocket in the server). Implementations are thread-safe. */
public interface RelayPeer {
    /** Sends one text frame; throws when the socket is gone. */
    void send(String frame) throws Exception;

    /** Closes the socket with a WebSocket close code and a short reason (never a secret). */
    void close(int code, String reason);
}
