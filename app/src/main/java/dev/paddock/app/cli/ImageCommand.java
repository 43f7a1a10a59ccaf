package dev.paddock.app.cli;

import dev.paddock.app.client.Fields;
import dev.paddock.app.client.Json;
import dev.paddock.app.client.PaddockClient;
import dev.paddock.app.client.UnreachableException;
import dev.paddock.app.serve.DataDir;
import dev.paddock.app.serve.StartupException;
import dev.paddock.core.images.ImageInfo;
import dev.paddock.core.images.ImageLayout;
import dev.paddock.images.BuildSpec;
import dev.paddock.images.ImageCatalog;
import dev.paddock.images.ImageStore;
import dev.paddock.store.JdbcStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code paddock image …}: the root filesystems sandboxes can run on. {@code build} and {@code import} work on the
 * local data directory (debootstrap needs root on this machine, the archive is a local file); a running server sees
 * the new image at once. {@code list} and {@code rm} ask the server, and work on the data directory directly when
 * no server answers.
 */
@Command(name = "image", description = "Build, import, list and remove images (root filesystems for sandboxes).",
        subcommands = {ImageCommand.Build.class, ImageCommand.Import.class, ImageCommand.ListAll.class, ImageCommand.Remove.class})
public final class ImageCommand {
    ImageCommand() {}

    abstract static class Local extends ClientCommand {
        ImageStore store() {
            return ImageStore.inDataDir(options.localDataDir(ctx));
        }

        void print(ImageInfo info) {
            if (json()) {
                printJson(view(info));
            } else {
                ctx.out().println("image " + info.name() + " ready (" + info.source() + ", " + Units.formatSize(info.sizeBytes()) + ")");
            }
        }
    }

    @Command(name = "build", description = "Build a Debian image with debootstrap on this machine (needs root; takes minutes).")
    static final class Build extends Local {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--packages", paramLabel = "PKG,…", split = ",", description = "extra Debian packages, e.g. python3,curl")
        List<String> packages = new ArrayList<>();

        @Option(names = "--suite", paramLabel = "SUITE", description = "Debian suite (default " + BuildSpec.DEFAULT_SUITE + ")")
        String suite;

        @Option(names = "--mirror", paramLabel = "URL", description = "Debian mirror (default: the one this machine's apt uses)")
        String mirror;

        @Override
        public Integer call() {
            BuildSpec spec = new BuildSpec(packages, suite, mirror, null);
            ImageInfo info = store().buildDebian(name, spec, line -> {
                // progress goes to stderr with --json so stdout stays one JSON document
                (json() ? ctx.err() : ctx.out()).println(Table.clean(line));
            });
            print(ImageMountPoints.ensure(info));
            return 0;
        }
    }

    @Command(name = "import", description = "Import a `docker save` or OCI image archive (.tar or .tar.gz).")
    static final class Import extends Local {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Parameters(index = "1", paramLabel = "ARCHIVE")
        Path archive;

        @Override
        public Integer call() {
            if (!Files.isRegularFile(archive)) throw CliException.usage("'" + archive + "' is not a file; give a `docker save` or OCI image tar");
            print(ImageMountPoints.ensure(store().importOci(name, archive.toAbsolutePath())));
            return 0;
        }
    }

    @Command(name = "list", aliases = "ls", description = "List images.")
    static final class ListAll extends Local {
        @Override
        public Integer call() {
            JsonNode data;
            try {
                JsonNode page = Fields.object(client().call("GET", "/v1/images", Map.of(), null));
                var array = Json.array();
                Fields.objects(page, "data").forEach(array::add);
                data = array;
            } catch (UnreachableException e) {
                ctx.err().println("note: no server answers at " + client().baseUrl() + "; listing " + ImageLayout.inDataDir(options.localDataDir(ctx)).imagesDir());
                var array = Json.array();
                store().list().forEach(i -> array.add(view(i)));
                data = array;
            }
            if (json()) {
                ObjectNode out = Json.object();
                out.set("data", data);
                printJson(out);
                return 0;
            }
            if (data.isEmpty()) {
                ctx.out().println("no images (build one with `paddock image build NAME` or import one with `paddock image import NAME FILE`)");
                return 0;
            }
            Table t = new Table("NAME", "SOURCE", "REF", "SIZE", "CREATED");
            for (JsonNode i : data) {
                long size = Fields.integer(i, "size_bytes", -1);
                t.row(Fields.requiredString(i, "name"), text(i, "source"), text(i, "ref"), size < 0 ? "?" : Units.formatSize(size), text(i, "created_at"));
            }
            t.print(ctx.out());
            return 0;
        }
    }

    @Command(name = "rm", aliases = "delete", description = "Remove an image; refused while a sandbox that has not terminated uses it.")
    static final class Remove extends Local {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        public Integer call() {
            try {
                client().call("DELETE", path("images", name), Map.of(), null);
            } catch (UnreachableException e) {
                removeLocally();
            }
            if (!json()) ctx.out().println("removed image " + name);
            return 0;
        }

        /**
         * No server answers: take the data directory's lock (so no server starts meanwhile, and one that runs on
         * another port is noticed) and check the sandbox records the next server would re-attach.
         */
        private void removeLocally() {
            Path root = options.localDataDir(ctx);
            try (DataDir dir = DataDir.open(root)) {
                if (!Files.exists(dir.database())) {
                    store().delete(name);
                    return;
                }
                try (JdbcStore db = JdbcStore.openSqlite(dir.database())) {
                    new ImageCatalog(store(), db.sandboxes()).delete(name);
                }
            } catch (StartupException e) {
                throw new CliException(e.getMessage());
            }
        }
    }

    /** The same fields as the API's image object. */
    static ObjectNode view(ImageInfo i) {
        ObjectNode n = Json.object();
        n.put("type", "image");
        n.put("name", i.name());
        n.put("source", i.source());
        n.put("ref", i.ref());
        var packages = n.putArray("packages");
        i.packages().forEach(packages::add);
        if (i.sizeBytes() < 0) n.putNull("size_bytes");
        else n.put("size_bytes", i.sizeBytes());
        n.put("created_at", i.createdAt().toString());
        return n;
    }
}
