package dev.paddock.core.spi;

import dev.paddock.core.BoundedBuffer;

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

    /** Stdout into one buffer, stderr into another (or the same one); a null buffer drops its stream. */
    static ExecOutput into(BoundedBuffer stdout, BoundedBuffer stderr) {
        return new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { if (stdout != null) stdout.append(d, o, l); }
            @Override public void stderr(byte[] d, int o, int l) { if (stderr != null) stderr.append(d, o, l); }
        };
    }
}
