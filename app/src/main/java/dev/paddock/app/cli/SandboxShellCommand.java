package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import dev.paddock.app.client.ApiException;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import sun.misc.Signal;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code paddock sandbox shell ID [-- CMD…]}: an interactive terminal in a sandbox. The local terminal goes to raw
 * mode (restored on the way out, however the session ends), keystrokes go to the sandbox's pty as they are typed,
 * window resizes follow, and the exit code is the command's.
 */
@Command(name = "shell", description = "Open an interactive terminal in a sandbox (bash by default); exits with the command's code.")
final class SandboxShellCommand extends ClientCommand {
    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Parameters(index = "1..*", paramLabel = "CMD", description = "the command to run on the terminal (after --; default: a login shell)")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        String sbx = sandboxId(id);
        int[] size = LocalTerminal.size();
        ObjectNode body = Json.object().put("rows", size[0]).put("cols", size[1]);
        if (!command.isEmpty()) command.forEach(body.putArray("command")::add);
        // raw before anything is typed: keys pressed while the terminal opens must not be echoed or edited locally
        Optional<LocalTerminal> raw = ctx.stdin() == System.in ? LocalTerminal.raw() : Optional.empty();
        WebSocket socket = null;
        try {
            JsonNode pty = client().json("POST", path("sandboxes", sbx, "pty"), Map.of(), body);
            String attach = Fields.requiredString(pty, "attach_url");
            if (!attach.startsWith("/v1/")) throw new ApiException(200, "invalid_response", "invalid_response", "the answer's field 'attach_url' is not a path of this server");
            URI uri = URI.create(client().baseUrl().replaceFirst("^http", "ws") + attach);
            Session session = new Session(ctx.stdout());
            // the opening handshake is bounded like any answer; the open terminal then may be quiet for as long as its user
            WebSocket ws;
            try {
                ws = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build().newWebSocketBuilder()
                        .connectTimeout(client().answerTimeout()).buildAsync(uri, session).join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof HttpTimeoutException) {
                    throw new ApiException(0, "timeout_error", "response_timeout", client().baseUrl()
                            + " stalled: the terminal's connection did not open within " + client().answerTimeout().toSeconds() + " s");
                }
                throw e;
            }
            socket = ws;
            if (raw.isPresent()) {
                Signal.handle(new Signal("WINCH"), s -> {
                    int[] now = LocalTerminal.size();
                    ws.sendText("{\"type\":\"resize\",\"rows\":" + now[0] + ",\"cols\":" + now[1] + "}", true);
                });
            }
            Thread keys = Thread.ofPlatform().daemon().name("paddock-shell-keys").start(() -> typeInto(ws, ctx.stdin()));
            Integer code = session.ended.join();
            keys.interrupt();
            return code == null ? 1 : code;
        } finally {
            raw.ifPresent(LocalTerminal::close);
            if (socket != null) socket.abort();
        }
    }

    /** Sends what is typed as it comes; the end of the input (a pipe) closes the terminal's input with ^D. */
    private static void typeInto(WebSocket socket, InputStream in) {
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) > 0; ) socket.sendBinary(ByteBuffer.wrap(Arrays.copyOf(buf, n)), true).join();
            socket.sendBinary(ByteBuffer.wrap(new byte[] {4}), true).join();
        } catch (IOException | RuntimeException e) {
            // the session ended
        }
    }

    /** The terminal's output to stdout; ends with the command's exit code, or null when the connection ended without one. */
    private static final class Session implements WebSocket.Listener {
        final CompletableFuture<Integer> ended = new CompletableFuture<>();
        private final OutputStream out;
        private final StringBuilder text = new StringBuilder();

        Session(OutputStream out) {
            this.out = out;
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
            byte[] b = new byte[data.remaining()];
            data.get(b);
            try {
                out.write(b);
                out.flush();
            } catch (IOException e) {
                ended.complete(null);
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                JsonNode m = PaddockClient.parse(text.toString().getBytes(StandardCharsets.UTF_8));
                text.setLength(0);
                switch (m.path("type").asString()) {
                    case "exit" -> ended.complete(m.path("exit_code").isNumber() ? m.path("exit_code").asInt() : null);
                    case "replaced" -> ended.complete(null);
                    default -> { }
                }
            }
            ws.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket ws, int status, String reason) {
            ended.complete(null);
            return null;
        }

        @Override
        public void onError(WebSocket ws, Throwable error) {
            ended.complete(null);
        }
    }
}
