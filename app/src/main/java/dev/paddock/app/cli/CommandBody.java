package dev.paddock.app.cli;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The request body naming one command (argv or a shell line, env, cwd), shared by `exec` and `start`. */
final class CommandBody {
    private CommandBody() {}

    /** Checks that exactly one of {@code shell} and {@code argv} is given; {@code example} shows the usage. */
    static ObjectNode of(String shell, List<String> argv, Map<String, String> env, String cwd, String example) {
        if (shell == null && argv.isEmpty()) throw CliException.usage("give the command after --, e.g. `" + example + "`, or use --shell \"LINE\"");
        if (shell != null && !argv.isEmpty()) throw CliException.usage("give either --shell or a command after --, not both");
        ObjectNode body = Json.object();
        if (shell != null) {
            body.put("command", shell);
        } else {
            ArrayNode a = body.putArray("argv");
            argv.forEach(a::add);
        }
        if (!env.isEmpty()) {
            ObjectNode e = body.putObject("env");
            env.forEach(e::put);
        }
        if (cwd != null) body.put("cwd", cwd);
        return body;
    }
}
