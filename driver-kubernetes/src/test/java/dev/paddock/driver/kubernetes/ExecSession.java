package dev.paddock.driver.kubernetes;

import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The kubelet's side of one exec, in the v4 channel protocol: binary messages whose first byte is the channel
 * (0 stdin, 1 stdout, 2 stderr, 3 the final status as JSON). The command runs as a real process (see
 * {@link FakeKubelet.RunningPod#bwrap}).
 */
final class ExecSession extends WebSocketListener {
    private final FakeKubelet.RunningPod pod;
    private final List<String> argv;
    private final boolean stdin;
    private volatile Process process;

    ExecSession(FakeKubelet.RunningPod pod, List<String> argv, boolean stdin) {
        this.pod = pod;
        this.argv = argv;
        this.stdin = stdin;
    }

    @Override
    public void onOpen(WebSocket ws, Response response) {
        try {
            process = new ProcessBuilder(pod.bwrap(argv)).start();
        } catch (IOException e) {
            sendStatus(ws, 127);
            return;
        }
        pod.processes.add(process.toHandle());
        if (!stdin) closeStdin(); // an exec without stdin reads end-of-file, as from /dev/null
        Thread out = Thread.ofVirtual().start(() -> pump(process.getInputStream(), ws, 1));
        Thread err = Thread.ofVirtual().start(() -> pump(process.getErrorStream(), ws, 2));
        Thread.ofVirtual().start(() -> {
            try {
                int code = process.waitFor();
                out.join();
                err.join();
                pod.processes.remove(process.toHandle());
                sendStatus(ws, code);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Override
    public void onMessage(WebSocket ws, ByteString bytes) {
        onMessage(ws, bytes.toByteArray());
    }

    @Override
    public void onMessage(WebSocket ws, byte[] bytes) {
        if (bytes.length < 1 || bytes[0] != 0 || process == null) return;
        try {
            OutputStream in = process.getOutputStream();
            in.write(bytes, 1, bytes.length - 1);
            in.flush();
        } catch (IOException commandGone) {
            // the command stopped reading: what is left of its stdin goes nowhere, as in a pipe
        }
    }

    @Override
    public void onClosing(WebSocket ws, int code, String reason) {
        closeStdin();
    }

    private void closeStdin() {
        if (process == null) return;
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    private static void pump(InputStream in, WebSocket ws, int channel) {
        byte[] buf = new byte[8193];
        try {
            int n;
            while ((n = in.read(buf, 1, buf.length - 1)) > 0) {
                buf[0] = (byte) channel;
                ws.send(Arrays.copyOf(buf, n + 1));
            }
        } catch (IOException ended) {
            // the process's end closed the pipe
        }
    }

    private static void sendStatus(WebSocket ws, int exitCode) {
        String status = exitCode == 0 ? "{\"metadata\":{},\"status\":\"Success\"}"
                : "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with non-zero exit code\",\"reason\":\"NonZeroExitCode\","
                        + "\"details\":{\"causes\":[{\"reason\":\"ExitCode\",\"message\":\"" + exitCode + "\"}]}}";
        byte[] json = status.getBytes(StandardCharsets.UTF_8);
        byte[] frame = new byte[json.length + 1];
        frame[0] = 3;
        System.arraycopy(json, 0, frame, 1, json.length);
        ws.send(frame);
        ws.close(1000, "");
    }
}
