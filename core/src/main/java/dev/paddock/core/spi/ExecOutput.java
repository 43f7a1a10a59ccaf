package dev.paddock.core.spi;

/**
 * Receives a running command's output as it arrives, on a driver thread. Implementations must be quick and
 * must not throw; the byte arrays are only valid during the call.
 */
public interface ExecOutput {
    void stdout(byte[] data, int offset, int length);

    void stderr(byte[] data, int offset, int length);

    ExecOutput DISCARD = new ExecOutput() {
        @Override public void stdout(byte[] d, int o, int l) {}
        @Override public void stderr(byte[] d, int o, int l) {}
    };
}
