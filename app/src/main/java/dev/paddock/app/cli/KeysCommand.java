package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.core.Ids;
import dev.paddock.core.Text;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code paddock keys create|list|revoke}: API key management (admin keys only). */
@Command(name = "keys", description = "Manage API keys (needs an admin key; any key may revoke itself).",
        subcommands = {KeysCommand.Create.class, KeysCommand.ListAll.class, KeysCommand.Revoke.class})
public final class KeysCommand {

    @Command(name = "create", description = "Create an API key and print its secret (shown only once).")
    static final class Create extends ClientCommand {
        @Option(names = "--name", required = true, description = "what the key is for, e.g. ci-runner")
        String name;

        @Option(names = "--tenant", paramLabel = "TENANT", description = "tenant to add the key to (default: a new tenant with the operator's key, else your own)")
        String tenant;

        @Option(names = "--admin", description = "the key may manage API keys")
        boolean admin;

        @Override public Integer call() {
            ObjectNode body = Json.object().put("name", name);
            if (tenant != null) body.put("tenant_id", tenant);
            if (admin) body.put("admin", true);
            byte[] raw = client().call("POST", "/v1/api_keys", Map.of(), body);
            if (json()) {
                printJson(raw);
                return 0;
            }
            JsonNode k = Fields.object(raw);
            ctx.out().println(text(k, "key"));
            ctx.err().println("created " + text(k, "id") + " in tenant " + text(k, "tenant_id")
                    + (Fields.bool(k, "admin", false) ? " (admin)" : "") + "; the secret above is shown only once");
            return 0;
        }
    }

    @Command(name = "list", description = "List active API keys: your tenant's, or every tenant's with the operator's key.")
    static final class ListAll extends ClientCommand {
        @Option(names = "--tenant", paramLabel = "TENANT", description = "only this tenant's keys (the operator's key may name any tenant)")
        String tenant;

        @Override public Integer call() {
            byte[] raw = client().call("GET", "/v1/api_keys", tenant == null ? Map.of() : Map.of("tenant_id", tenant), null);
            if (json()) {
                printJson(raw);
                return 0;
            }
            Table t = new Table("ID", "NAME", "TENANT", "PREFIX", "ADMIN", "CREATED");
            for (JsonNode k : Fields.objects(Fields.object(raw), "data")) {
                t.row(Fields.requiredString(k, "id"), text(k, "name"), text(k, "tenant_id"), text(k, "prefix"),
                        Fields.bool(k, "admin", false) ? "yes" : "no", text(k, "created_at"));
            }
            t.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "revoke", description = "Revoke an API key.")
    static final class Revoke extends ClientCommand {
        @Parameters(paramLabel = "KEY_ID")
        String id;

        @Override public Integer call() {
            if (!Ids.isValid("key", id)) {
                throw CliException.usage("'" + Table.clean(Text.clip(id, 60)) + "' is not a key id; ids look like key_… (see `paddock keys list`)");
            }
            client().call("DELETE", path("api_keys", id), Map.of(), null);
            if (json()) printJson(Json.object().put("id", id).put("revoked", true));
            else ctx.out().println("revoked " + id);
            return 0;
        }
    }
}
