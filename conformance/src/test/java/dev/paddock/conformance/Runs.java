package dev.paddock.conformance;

import dev.paddock.core.spi.ExecOutput;
import dev.paddock.core.spi.ExecRequest;
import dev.paddock.core.spi.ExecResult;
import dev.paddock.core.spi.Sandbox;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Runs a command to completion and keeps its output. */
public record Runs(ExecResult result, String stdout, String stderr) {
    public static Runs run(Sandbox sandbox, ExecRequest request) throws InterruptedException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ExecOutput output = new ExecOutput() {
            @Override public void stdout(byte[] d, int o, int l) { synchronized (out) { out.write(d, o, l); } }
            @Override public void stderr(byte[] d, int o, int l) { synchronized (err) { err.write(d, o, l); } }
        };
        ExecResult result = sandbox.exec(request, output).await();
        synchronized (out) {
            synchronized (err) {
                return new Runs(result, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
            }
        }
    }

    public static Runs shell(Sandbox sandbox, String line) throws InterruptedException {
        return run(sandbox, ExecRequest.shell(line));
    }

    public int exit() { return result.exitCode(); }
}
