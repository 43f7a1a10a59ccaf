package dev.paddock.images;

import dev.paddock.core.Text;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the two archive shapes in common use: an OCI image layout ({@code index.json} + {@code blobs/sha256/...})
 * and the {@code docker save} archive ({@code manifest.json} + config + layer tars). When an archive has both (as
 * Docker 25+ writes), the OCI index wins because every blob it names is content-addressed.
 */
final class OciArchiveReader {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final long MAX_JSON_BYTES = 4L << 20;
    private static final int MAX_INDEX_DEPTH = 3;
    private static final Pattern BLOB_PATH = Pattern.compile("(?:.*/)?blobs/sha256/([a-f0-9]{64})");
    private static final Pattern LEGACY_CONFIG = Pattern.compile("([a-f0-9]{64})\\.json");
    private static final String REF_ANNOTATION = "org.opencontainers.image.ref.name";
    private static final String CONTAINERD_NAME = "io.containerd.image.name";

    private final ArchiveContents archive;
    private final ImageLimits limits;

    private OciArchiveReader(ArchiveContents archive, ImageLimits limits) {
        this.archive = archive;
        this.limits = limits;
    }

    static OciImage read(ArchiveContents archive, ImageLimits limits) throws IOException {
        OciArchiveReader reader = new OciArchiveReader(archive, limits);
        if (archive.has("index.json")) return reader.readOciLayout();
        if (archive.has("manifest.json")) return reader.readDockerArchive();
        throw ImageErrors.invalidArchive("the archive has neither index.json (OCI image layout) nor manifest.json "
                + "(docker save); export the image with 'docker save' or 'skopeo copy ... oci-archive:FILE'");
    }

    // ---- OCI image layout ----

    private OciImage readOciLayout() throws IOException {
        JsonNode index = json(archive.file("index.json"), "index.json");
        JsonNode chosen = choose(index.path("manifests"), "index.json");
        String ref = annotation(chosen, REF_ANNOTATION);
        if (ref == null) ref = annotation(chosen, CONTAINERD_NAME);
        JsonNode manifest = null;
        JsonNode descriptor = chosen;
        for (int depth = 0; depth < MAX_INDEX_DEPTH; depth++) {
            String digest = Digests.requireSha256(descriptor.path("digest").asString(null), "a manifest descriptor");
            JsonNode node = json(verifiedBlob(digest, "manifest " + digest), "manifest " + digest);
            if (node.has("manifests")) {
                descriptor = choose(node.path("manifests"), "image index " + digest);
                continue;
            }
            manifest = node;
            if (ref == null) ref = digest;
            break;
        }
        if (manifest == null) throw ImageErrors.invalidArchive("image indexes are nested too deeply");

        String configDigest = Digests.requireSha256(manifest.path("config").path("digest").asString(null),
                "the image config");
        JsonNode config = json(verifiedBlob(configDigest, "image config"), "image config");
        JsonNode layerDescriptors = manifest.path("layers");
        if (!layerDescriptors.isArray()) throw ImageErrors.invalidArchive("the image manifest has no layers list");
        checkLayerCount(layerDescriptors.size());

        List<OciLayer> layers = new ArrayList<>();
        int i = 0;
        for (JsonNode layer : layerDescriptors) {
            String digest = Digests.requireSha256(layer.path("digest").asString(null), "layer " + (i + 1));
            String mediaType = layer.path("mediaType").asString("");
            if (mediaType.contains("nondistributable") || mediaType.contains("foreign")) {
                throw ImageErrors.unsupported("layer " + (i + 1) + " is a foreign layer (" + Text.clip(mediaType, 100)
                        + ") whose content is not in the archive");
            }
            Path blob = blob(digest, "layer " + (i + 1));
            if (layer.has("size") && layer.path("size").asLong() != Files.size(blob)) {
                throw ImageErrors.digestMismatch("layer " + (i + 1) + " size", layer.path("size").asString(),
                        String.valueOf(Files.size(blob)));
            }
            layers.add(new OciLayer(blob, "layer " + (i + 1) + " (" + digest + ")", digest, null));
            i++;
        }
        return new OciImage(layers, ref, env(config));
    }

    /** Picks the linux image for this machine's architecture from an index, skipping attestations. */
    private static JsonNode choose(JsonNode manifests, String where) {
        if (!manifests.isArray() || manifests.isEmpty()) {
            throw ImageErrors.invalidArchive(where + " lists no manifests");
        }
        List<JsonNode> candidates = new ArrayList<>();
        for (JsonNode m : manifests) {
            if ("attestation-manifest".equals(annotation(m, "vnd.docker.reference.type"))) continue;
            JsonNode platform = m.path("platform");
            if (platform.isObject() && !"linux".equals(platform.path("os").asString(""))) continue;
            candidates.add(m);
        }
        if (candidates.isEmpty()) throw ImageErrors.unsupported(where + " has no linux image");
        String arch = hostArchitecture();
        for (JsonNode m : candidates) {
            if (arch.equals(m.path("platform").path("architecture").asString(""))) return m;
        }
        for (JsonNode m : candidates) {
            if (!m.path("platform").isObject()) return m;
        }
        throw ImageErrors.unsupported(where + " has no image for the " + arch + " architecture");
    }

    // ---- docker save ----

    private OciImage readDockerArchive() throws IOException {
        JsonNode manifests = json(archive.file("manifest.json"), "manifest.json");
        if (!manifests.isArray() || manifests.isEmpty() || !manifests.get(0).isObject()) {
            throw ImageErrors.invalidArchive("manifest.json must be a non-empty array of images");
        }
        JsonNode manifest = manifests.get(0);
        String configPath = manifest.path("Config").asString(null);
        if (configPath == null) throw ImageErrors.invalidArchive("manifest.json names no Config file");
        Path configFile = member(configPath, "the image config");
        String configDigest = contentAddress(configPath);
        if (configDigest != null) Digests.verify(configFile, configDigest, "image config");
        JsonNode config = json(configFile, "image config");

        JsonNode layerPaths = manifest.path("Layers");
        JsonNode diffIds = config.path("rootfs").path("diff_ids");
        if (!layerPaths.isArray() || layerPaths.isEmpty()) {
            throw ImageErrors.invalidArchive("manifest.json lists no Layers");
        }
        if (!diffIds.isArray() || diffIds.size() != layerPaths.size()) {
            throw ImageErrors.invalidArchive("the image config's rootfs.diff_ids does not match the "
                    + layerPaths.size() + " layers in manifest.json, so the layers cannot be verified");
        }
        checkLayerCount(layerPaths.size());
        List<OciLayer> layers = new ArrayList<>();
        for (int i = 0; i < layerPaths.size(); i++) {
            String path = layerPaths.get(i).asString(null);
            if (path == null) throw ImageErrors.invalidArchive("manifest.json has a Layers entry that is not a path");
            String diffId = Digests.requireSha256(diffIds.get(i).asString(null), "layer " + (i + 1));
            String label = "layer " + (i + 1) + " (" + Text.clip(path, 120) + ")";
            layers.add(new OciLayer(member(path, label), label, contentAddress(path), diffId));
        }
        JsonNode tags = manifest.path("RepoTags");
        String ref = tags.isArray() && !tags.isEmpty() ? tags.get(0).asString(null) : null;
        if (ref == null) ref = configDigest != null ? configDigest : Digests.of(configFile);
        return new OciImage(layers, ref, env(config));
    }

    /** The digest a docker-archive path promises by its name ({@code blobs/sha256/<hex>} or {@code <hex>.json}). */
    private static String contentAddress(String path) {
        Matcher blob = BLOB_PATH.matcher(path);
        if (blob.matches()) return "sha256:" + blob.group(1);
        Matcher legacy = LEGACY_CONFIG.matcher(path);
        if (legacy.matches()) return "sha256:" + legacy.group(1);
        return null;
    }

    // ---- helpers ----

    private void checkLayerCount(int count) {
        if (count > limits.maxLayers()) {
            throw ImageErrors.tooLarge("the image has " + count + " layers; at most " + limits.maxLayers()
                    + " are allowed");
        }
    }

    private Path blob(String digest, String what) {
        Path file = archive.file("blobs/sha256/" + Digests.hex(digest));
        if (file == null) throw ImageErrors.invalidArchive(what + " (" + digest + ") is missing from the archive");
        return file;
    }

    private Path verifiedBlob(String digest, String what) throws IOException {
        Path file = blob(digest, what);
        Digests.verify(file, digest, what);
        return file;
    }

    private Path member(String path, String what) {
        Path file = archive.file(path);
        if (file == null) {
            throw ImageErrors.invalidArchive(what + " ('" + Text.clip(path, 120) + "') is missing from the archive");
        }
        return file;
    }

    private static JsonNode json(Path file, String what) throws IOException {
        if (Files.size(file) > MAX_JSON_BYTES) throw ImageErrors.tooLarge(what + " is larger than 4 MiB");
        try (InputStream in = Files.newInputStream(file)) {
            JsonNode node = JSON.readTree(in);
            if (node == null || node.isMissingNode()) throw ImageErrors.invalidArchive(what + " is empty");
            return node;
        } catch (JacksonException e) {
            throw ImageErrors.invalidArchive(what + " is not valid JSON: " + Text.clip(e.getOriginalMessage(), 200));
        }
    }

    private static String annotation(JsonNode descriptor, String key) {
        JsonNode value = descriptor.path("annotations").path(key);
        return value.isString() ? value.asString() : null;
    }

    private static List<String> env(JsonNode config) {
        List<String> env = new ArrayList<>();
        for (JsonNode e : config.path("config").path("Env")) {
            if (e.isString()) env.add(e.asString());
        }
        return env;
    }

    private static String hostArchitecture() {
        String arch = System.getProperty("os.arch");
        return switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64" -> "arm64";
            default -> arch;
        };
    }
}
