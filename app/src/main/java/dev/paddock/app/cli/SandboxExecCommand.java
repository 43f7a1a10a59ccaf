package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.ApiException;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.client.SseEvent;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code paddock sandbox exec ID -- argv…}: runs a command, streams its output as it arrives and exits with the
 * command's exit code (128+N when killed by signal N, 124 when it timed out).
 */
@Command(name = "exec", description = "Run a command in a sandbox; exits with its exit code.")
public final class SandboxExecCommand extends ClientCommand {
    static final int TIMED_OUT_EXIT = 124;

    @Parameters(index = "0", paramLabel = "ID")
    String id;

    @Parameters(index = "1..*", paramLabel = "ARGV", description = "the command and its arguments (put them after --)")
    List<String> argv = new ArrayList<>();

    @Option(names = "--shell", paramLabel = "LINE", description = "run this line with /bin/sh -c instead of ARGV")
    String shell;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = Units.DurationConverter.class, description = "kill it after this long, e.g. 60s, 5m")
    Duration timeout;

    @Option(names = "--cwd", paramLabel = "DIR", description = "working directory inside the sandbox (default /workspace)")
    String cwd;

    @Option(names = "--env", paramLabel = "K=V", description = "extra environment variable (repeatable)")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(names = {"-i", "--stdin"}, description = "send this program's standard input to the command")
    boolean stdin;

    @Override
    public Integer call() throws IOException {
        String sbx = sandboxId(id);
        ObjectNode body = request();
        String path = path("sandboxes", sbx, "exec");
        if (json()) {
            // a JSON answer comes only once the command ends: wait for its timeout (else the API's longest, an hour) too
            byte[] raw = client().waitingLonger(timeout != null ? timeout : Duration.ofHours(1)).call("POST", path, Map.of(), body);
            printJson(raw);
            return exitCode(Fields.object(raw), false);
        }
        JsonNode[] result = new JsonNode[1];
        client().stream(path, body, event -> handle(event, result));
        if (result[0] == null) throw new CliException("the server ended the output stream before the command's exit status");
        return exitCode(result[0], true);
    }

    private ObjectNode request() throws IOException {
        ObjectNode body = CommandBody.of(shell, argv, env, cwd, "paddock sandbox exec ID -- ls -la");
        if (timeout != null) body.put("timeout_seconds", timeout.toSeconds());
        if (stdin) body.put("stdin_base64", Base64.getEncoder().encodeToString(ctx.stdin().readAllBytes()));
        return body;
    }

    private void handle(SseEvent event, JsonNode[] result) {
        switch (event.event()) {
            case "stdout" -> write(ctx.stdout(), event.data());
            case "stderr" -> write(ctx.stderr(), event.data());
            case "exit" -> result[0] = Fields.object(event.data().getBytes(StandardCharsets.UTF_8));
            case "error" -> {
                JsonNode err = Fields.object(Fields.object(event.data().getBytes(StandardCharsets.UTF_8)), "error");
                String message = text(err, "message");
                throw new ApiException(500, text(err, "type"), text(err, "code"), message != null ? message : "the command failed on the server");
            }
            default -> { } // unknown events are for newer clients
        }
    }

    private void write(OutputStream target, String data) {
        // the bytes are the command's own output and pass as they are, like a terminal over ssh
        JsonNode chunk = Fields.object(data.getBytes(StandardCharsets.UTF_8));
        byte[] bytes = Base64.getDecoder().decode(Fields.requiredString(chunk, "data_base64"));
        try {
            ctx.out().flush();
            ctx.err().flush();
            target.write(bytes);
            target.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private int exitCode(JsonNode result, boolean explain) {
        if (Fields.bool(result, "timed_out", false)) {
            if (explain) ctx.err().println("paddock: the command timed out" + (timeout != null ? " after " + Units.formatDuration(timeout) : ""));
            return TIMED_OUT_EXIT;
        }
        if (Fields.bool(result, "oom_killed", false) && explain) {
            ctx.err().println("paddock: the command was killed: the sandbox ran out of memory");
        }
        long signal = Fields.integer(result, "signal", 0);
        if (signal > 0 && signal < 128) return 128 + (int) signal;
        long code = Fields.integer(result, "exit_code", 1);
        return code >= 0 && code <= 255 ? (int) code : 1;
    }
}
