package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.core.Text;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code paddock sandbox start|ps|logs|kill}: background processes. */
final class SandboxProcessCommands {
    /** One logs request returns at most this much; a longer log takes several. */
    static final int LOG_CHUNK = 65536;

    private SandboxProcessCommands() {}

    static String processes(String sandboxId) {
        return ClientCommand.path("sandboxes", sandboxId, "processes");
    }

    @Command(name = "start", description = "Start a command in the background; prints its pid.")
    static final class Start extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1..*", paramLabel = "ARGV", description = "the command and its arguments (put them after --)")
        List<String> argv = new ArrayList<>();

        @Option(names = "--shell", paramLabel = "LINE", description = "run this line with /bin/sh -c instead of ARGV")
        String shell;

        @Option(names = "--cwd", paramLabel = "DIR", description = "working directory inside the sandbox (default /workspace)")
        String cwd;

        @Option(names = "--env", paramLabel = "K=V", description = "extra environment variable (repeatable)")
        Map<String, String> env = new LinkedHashMap<>();

        @Override
        public Integer call() {
            String sbx = sandboxId(id);
            ObjectNode body = CommandBody.of(shell, argv, env, cwd, "paddock sandbox start ID -- sleep 60");
            byte[] raw = client().call("POST", processes(sbx), Map.of(), body);
            if (json()) printJson(raw);
            else ctx.out().println(Fields.integer(Fields.object(raw), "pid"));
            return 0;
        }
    }

    @Command(name = "ps", description = "List a sandbox's background processes.")
    static final class Ps extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Override
        public Integer call() {
            byte[] raw = client().call("GET", processes(sandboxId(id)), Map.of(), null);
            if (json()) {
                printJson(raw);
                return 0;
            }
            List<JsonNode> data = Fields.objects(Fields.object(raw), "data");
            if (data.isEmpty()) {
                ctx.out().println("no background processes (start one with `paddock sandbox start ID -- CMD`)");
                return 0;
            }
            Table t = new Table("PID", "STATE", "EXIT", "STARTED", "COMMAND");
            for (JsonNode p : data) {
                List<String> cmd = Fields.strings(p, "argv");
                boolean running = Fields.bool(p, "running", false);
                t.row(Fields.integer(p, "pid"), running ? "running" : "exited", running ? "" : Fields.number(p, "exit_code"),
                        text(p, "started_at"), Text.clip(String.join(" ", cmd), 80));
            }
            t.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "logs", description = "Print a background process's output (stdout and stderr as it wrote them).")
    static final class Logs extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "PID")
        long pid;

        @Option(names = {"-f", "--follow"}, description = "keep printing new output until the process exits")
        boolean follow;

        @Option(names = "--poll", paramLabel = "MILLIS", hidden = true, description = "how often --follow asks for more")
        long pollMillis = 200;

        @Override
        public Integer call() throws IOException, InterruptedException {
            String sbx = sandboxId(id);
            if (pid < 1) throw CliException.usage("PID must be a positive number (see `paddock sandbox ps " + sbx + "`)");
            long offset = drain(sbx, 0);
            if (!follow) return 0;
            while (running(sbx)) {
                Thread.sleep(pollMillis);
                offset = drain(sbx, offset);
            }
            drain(sbx, offset); // what it wrote between the last read and its exit
            return 0;
        }

        /** Copies everything from {@code offset} on to stdout; answers the new offset. */
        private long drain(String sbx, long offset) throws IOException {
            String logs = processes(sbx) + "/" + pid + "/logs";
            while (true) {
                byte[] chunk;
                try (InputStream in = client().download(logs, Map.of("offset", offset, "limit", LOG_CHUNK))) {
                    chunk = in.readAllBytes();
                }
                if (chunk.length > 0) {
                    ctx.out().flush();
                    ctx.stdout().write(chunk);
                    ctx.stdout().flush();
                    offset += chunk.length;
                }
                if (chunk.length < LOG_CHUNK) return offset;
            }
        }

        private boolean running(String sbx) {
            for (JsonNode p : Fields.objects(Fields.object(client().call("GET", processes(sbx), Map.of(), null)), "data")) {
                if (Fields.integer(p, "pid", -1) == pid) return Fields.bool(p, "running", false);
            }
            return false;
        }
    }

    @Command(name = "kill", description = "Send a signal to a background process (default TERM).")
    static final class Kill extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID")
        String id;

        @Parameters(index = "1", paramLabel = "PID")
        long pid;

        @Option(names = {"-s", "--signal"}, paramLabel = "SIGNAL", description = "TERM, KILL, INT, HUP, … or a number (default TERM)")
        String signal = "TERM";

        @Override
        public Integer call() {
            String sbx = sandboxId(id);
            if (pid < 1) throw CliException.usage("PID must be a positive number (see `paddock sandbox ps " + sbx + "`)");
            ObjectNode body = Json.object();
            if (signal.strip().matches("\\d{1,3}")) body.put("signal", Integer.parseInt(signal.strip()));
            else body.put("signal", signal.strip());
            client().call("POST", processes(sbx) + "/" + pid + "/signal", Map.of(), body);
            return 0;
        }
    }
}
