package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.PaddockClient;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;

/** {@code paddock sandbox ls ID:PATH}: a directory listing inside a sandbox. */
@Command(name = "ls", description = "List a directory in a sandbox: `ls sbx_…:/workspace/dir` (or ID alone for /workspace).")
public final class SandboxLsCommand extends ClientCommand {
    @Parameters(paramLabel = "ID[:PATH]")
    String target;

    @Override
    public Integer call() {
        RemotePath p = RemotePath.parseOrNull(target.contains(":") ? target : target + ":");
        if (p == null) throw CliException.usage("give a sandbox path like sbx_…:/workspace/dir");
        byte[] raw = client().call("GET", path("sandboxes", p.sandboxId(), "files", "list"), Map.of("path", p.path()), null);
        if (json()) {
            printJson(raw);
            return 0;
        }
        Table t = new Table("TYPE", "MODE", "SIZE", "MODIFIED", "NAME");
        for (JsonNode e : Fields.objects(Fields.object(raw), "data")) {
            String type = text(e, "type");
            String name = Fields.requiredString(e, "name");
            if ("symlink".equals(type) && text(e, "link_target") != null) name += " -> " + text(e, "link_target");
            if ("directory".equals(type)) name += "/";
            t.row(type, String.format("%04o", Fields.integer(e, "mode", 0) & 07777), Fields.integer(e, "size", 0), text(e, "modified_at"), name);
        }
        t.print(ctx.out());
        return 0;
    }
}
