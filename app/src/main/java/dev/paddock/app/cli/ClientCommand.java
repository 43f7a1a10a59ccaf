package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.client.Terminal;
import dev.paddock.core.Ids;
import dev.paddock.core.Text;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import tools.jackson.databind.JsonNode;

/** Base of every command that talks to a Paddock server: options, the client and output helpers. */
public abstract class ClientCommand implements Callable<Integer>, ContextAware {
    @Mixin
    protected ClientOptions options;

    protected CliContext ctx;
    private PaddockClient client;

    @Override
    public void context(CliContext ctx) { this.ctx = ctx; }

    public ClientOptions options() { return options; }

    protected PaddockClient client() {
        if (client == null) client = options.client(ctx);
        return client;
    }

    protected boolean json() { return options.json(); }

    /**
     * Prints an API answer for {@code --json} as it came, once it is known to be JSON (so it holds no raw control
     * character), with what JSON lets through that a terminal would act on escaped ({@link Terminal#escapeJson}).
     */
    protected void printJson(byte[] body) {
        PaddockClient.parse(body);
        ctx.out().println(Terminal.escapeJson(new String(body, StandardCharsets.UTF_8).strip()));
        ctx.out().flush();
    }

    /** An event's data for {@code --json}, as {@link #printJson(byte[])}. */
    protected void printJson(String data) {
        printJson(data.getBytes(StandardCharsets.UTF_8));
    }

    protected void printJson(JsonNode node) {
        ctx.out().println(Terminal.escapeJson(Json.string(node)));
        ctx.out().flush();
    }

    /** Refuses a malformed sandbox id before any request, as a usage error. */
    protected static String sandboxId(String id) {
        if (!Ids.isValid("sbx", id)) {
            throw CliException.usage("'" + Table.clean(Text.clip(id, 60))
                    + "' is not a sandbox id; ids look like sbx_0123456789abcdefghjkmnpqrs (see `paddock sandbox list`)");
        }
        return id;
    }

    protected static String path(String... segments) {
        StringBuilder sb = new StringBuilder("/v1");
        for (String s : segments) sb.append('/').append(URLEncoder.encode(s, StandardCharsets.UTF_8));
        return sb.toString();
    }

    /** A string field of an answer, checked and safe to print ({@link Fields#string}); null when absent. */
    protected static String text(JsonNode n, String field) {
        return Fields.string(n, field);
    }
}
