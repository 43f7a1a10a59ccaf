package dev.paddock.agents.worker;

import dev.paddock.access.Principal;
import dev.paddock.core.spi.Workspace;
import dev.paddock.host.RuntimeHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Lays a session agent's skills into the worker's sandbox at {@code /workspace/skills/<name>/}, as the official SDKs'
 * worker does under its working directory: each pinned version is read and downloaded (a zip) with the environment
 * key. Entries are written through the workspace, which refuses any path that leaves it; entries that would not land
 * under the skill's own directory are skipped. A skill that cannot be laid out is logged and the others go on.
 */
final class WorkerSkills {
    private static final Logger log = LoggerFactory.getLogger(WorkerSkills.class);
    private static final Pattern NAME = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
    static final String DIR = "/workspace/skills";

    private final QueueClient queue;
    private final RuntimeHost host;
    private final Principal owner;

    WorkerSkills(QueueClient queue, RuntimeHost host, Principal owner) {
        this.queue = queue;
        this.host = host;
        this.owner = owner;
    }

    void layOut(JsonNode session, String sandboxId) {
        for (JsonNode skill : session.path("agent").path("skills")) {
            String id = skill.path("skill_id").asString();
            try {
                JsonNode version = queue.skillVersion(id, skill.path("version").asString());
                String name = version.path("name").asString();
                if (!NAME.matcher(name).matches()) throw new IllegalStateException("the skill's name '" + name + "' is no directory name");
                try (InputStream zip = queue.skillContent(id, version.path("id").asString())) {
                    unzip(zip, name, host.workspace(owner, sandboxId));
                }
            } catch (IOException | RuntimeException e) {
                log.warn("laying out skill {} failed: {}", id, e.getMessage());
            }
        }
    }

    private static void unzip(InputStream in, String name, Workspace ws) throws IOException {
        try (ZipInputStream zip = new ZipInputStream(in)) {
            for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                String entry = e.getName();
                // the archive wraps the files in the skill's directory; nothing else is taken
                if (e.isDirectory() || !entry.startsWith(name + "/") || entry.contains("\\")) continue;
                String rest = entry.substring(name.length() + 1);
                if (rest.isEmpty() || rest.startsWith("/") || ("/" + rest + "/").contains("/../") || ("/" + rest + "/").contains("/./")) continue;
                try {
                    ws.write(DIR + "/" + name + "/" + rest, zip);
                } catch (UncheckedIOException x) {
                    throw x.getCause();
                }
            }
        }
    }
}
