package dev.paddock.images;

import dev.paddock.core.images.ImageInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Reads and writes {@code image.json} (snake_case, like the rest of the API). */
final class ImageMetadata {
    static final String FILE_NAME = "image.json";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private ImageMetadata() {}

    static void write(Path imageDir, ImageInfo info) throws IOException {
        ObjectNode node = JSON.createObjectNode();
        node.put("name", info.name());
        node.put("source", info.source());
        node.put("created_at", info.createdAt().toString());
        node.put("size_bytes", info.sizeBytes());
        node.put("ref", info.ref());
        ArrayNode packages = node.putArray("packages");
        info.packages().forEach(packages::add);
        ArrayNode env = node.putArray("env");
        info.env().forEach(env::add);
        Path tmp = imageDir.resolve(FILE_NAME + ".tmp");
        Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(node));
        Files.move(tmp, imageDir.resolve(FILE_NAME), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
    }

    /** The recorded info, or null when the file is missing or unreadable (an image dir someone else made). */
    static ImageInfo read(Path imageDir, Path rootfs) {
        Path file = imageDir.resolve(FILE_NAME);
        if (!Files.isRegularFile(file)) return null;
        try {
            JsonNode node = JSON.readTree(Files.readString(file));
            return new ImageInfo(
                    node.path("name").asString(imageDir.getFileName().toString()),
                    node.path("source").asString("unknown"),
                    Instant.parse(node.path("created_at").asString()),
                    node.path("size_bytes").asLong(0),
                    rootfs,
                    node.path("ref").asString(null),
                    strings(node.path("packages")),
                    strings(node.path("env")));
        } catch (IOException | JacksonException | DateTimeException e) {
            return null;
        }
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : array) if (n.isString()) out.add(n.asString());
        return out;
    }
}
