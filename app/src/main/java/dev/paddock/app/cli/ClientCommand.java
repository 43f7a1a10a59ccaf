package dev.paddock.app.cli;

import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
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

    /** Prints a raw API answer for {@code --json}. */
    protected void printJson(byte[] body) {
        ctx.out().println(new String(body, StandardCharsets.UTF_8).strip());
        ctx.out().flush();
    }

    protected void printJson(JsonNode node) {
        ctx.out().println(Json.string(node));
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

    protected static String text(JsonNode n, String field) {
        JsonNode v = n.path(field);
        if (v.isMissingNode() || v.isNull()) return null;
        return v.isValueNode() ? v.asString() : v.toString();
    }
}
