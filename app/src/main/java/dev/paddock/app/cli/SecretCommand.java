package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.core.Ids;
import dev.paddock.core.Text;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code paddock secret create|list|rotate|rm}: the tenant's vault. Values are read from stdin or an environment
 * variable, never from the command line (where {@code ps} and shell history would show them), and never printed.
 */
@Command(name = "secret", description = "Manage vault secrets that sandboxes use through credential rules (values are never shown).",
        subcommands = {SecretCommand.Create.class, SecretCommand.ListAll.class, SecretCommand.Rotate.class, SecretCommand.Remove.class})
public final class SecretCommand {

    /** Where the value comes from: exactly one of the two. */
    static final class ValueSource {
        @Option(names = "--value-stdin", required = true, description = "read the value from standard input (one trailing newline is dropped)")
        boolean stdin;

        @Option(names = "--value-env", required = true, paramLabel = "VAR", description = "read the value from environment variable VAR")
        String env;

        String read(CliContext ctx) {
            String value;
            if (env != null) {
                value = ctx.env(env);
                if (value == null || value.isEmpty()) throw CliException.usage("environment variable " + env + " is not set or empty");
                return value;
            }
            try {
                value = new String(ctx.stdin().readNBytes(64 * 1024 + 2), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw CliException.usage("cannot read the secret from standard input: " + e.getMessage());
            }
            if (value.endsWith("\n")) value = value.substring(0, value.length() - 1);
            if (value.endsWith("\r")) value = value.substring(0, value.length() - 1);
            if (value.isEmpty()) throw CliException.usage("standard input was empty; pipe the secret in, e.g. printf %s \"$TOKEN\" | paddock secret create NAME --value-stdin");
            return value;
        }
    }

    @Command(name = "create", description = "Store a secret and print its id.")
    static final class Create extends ClientCommand {
        @Parameters(paramLabel = "NAME", description = "letters, digits, '_', '.', '-'")
        String name;

        @ArgGroup(exclusive = true, multiplicity = "1")
        ValueSource source;

        @Override public Integer call() {
            ObjectNode body = Json.object().put("name", name).put("value", source.read(ctx));
            byte[] raw = client().call("POST", "/v1/secrets", Map.of(), body);
            if (json()) printJson(raw);
            else ctx.out().println(Fields.requiredString(Fields.object(raw), "id"));
            return 0;
        }
    }

    @Command(name = "list", description = "List the secrets of your tenant (names and ids only).")
    static final class ListAll extends ClientCommand {
        @Override public Integer call() {
            byte[] raw = client().call("GET", "/v1/secrets", Map.of(), null);
            if (json()) {
                printJson(raw);
                return 0;
            }
            Table t = new Table("ID", "NAME", "VERSION", "CREATED", "UPDATED");
            for (JsonNode s : Fields.objects(Fields.object(raw), "data")) {
                t.row(Fields.requiredString(s, "id"), text(s, "name"), Fields.number(s, "version"), text(s, "created_at"), text(s, "updated_at"));
            }
            t.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "rotate", description = "Replace a secret's value; sandboxes using it get the new value on their next request.")
    static final class Rotate extends ClientCommand {
        @Parameters(paramLabel = "SECRET_ID")
        String id;

        @ArgGroup(exclusive = true, multiplicity = "1")
        ValueSource source;

        @Override public Integer call() {
            byte[] raw = client().call("POST", path("secrets", secretId(id), "rotate"), Map.of(),
                    Json.object().put("value", source.read(ctx)));
            if (json()) printJson(raw);
            else ctx.out().println("rotated " + id + " (version " + Fields.number(Fields.object(raw), "version") + ")");
            return 0;
        }
    }

    @Command(name = "rm", description = "Delete a secret. Sandboxes using it can no longer reach its hosts with it.")
    static final class Remove extends ClientCommand {
        @Parameters(paramLabel = "SECRET_ID")
        String id;

        @Override public Integer call() {
            client().call("DELETE", path("secrets", secretId(id)), Map.of(), null);
            if (json()) printJson(Json.object().put("id", id).put("deleted", true));
            else ctx.out().println("deleted " + id);
            return 0;
        }
    }

    static String secretId(String id) {
        if (!Ids.isValid("sec", id)) {
            throw CliException.usage("'" + Table.clean(Text.clip(id, 60)) + "' is not a secret id; ids look like sec_… (see `paddock secret list`)");
        }
        return id;
    }
}
