package dev.paddock.images;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.UnaryOperator;

/** Writes small image archives in the two shapes the store imports: docker save and OCI image layout. */
final class ImageArchives {
    private ImageArchives() {}

    static String sha256(byte[] data) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code docker save} shape: manifest.json, {@code <config-hex>.json}, {@code <n>/layer.tar}. */
    static Path dockerArchive(Path file, String tag, List<byte[]> layers) throws IOException {
        return dockerArchive(file, tag, layers, UnaryOperator.identity());
    }

    /** As above; {@code tamper} may change each layer's bytes after the config recorded its digest. */
    static Path dockerArchive(Path file, String tag, List<byte[]> layers, UnaryOperator<byte[]> tamper)
            throws IOException {
        List<String> diffIds = layers.stream().map(ImageArchives::sha256).toList();
        String config = """
                {"architecture":"amd64","os":"linux","config":{"Env":["PATH=/usr/bin:/bin","LANG=C.UTF-8"]},
                 "rootfs":{"type":"layers","diff_ids":[%s]}}"""
                .formatted(String.join(",", diffIds.stream().map(d -> "\"" + d + "\"").toList()));
        byte[] configBytes = config.getBytes(StandardCharsets.UTF_8);
        String configName = sha256(configBytes).substring(7) + ".json";
        TarBuilder outer = new TarBuilder().file(configName, configBytes, 0644);
        List<String> layerPaths = new ArrayList<>();
        for (int i = 0; i < layers.size(); i++) {
            String path = "layer" + i + "/layer.tar";
            outer.dir("layer" + i).file(path, tamper.apply(layers.get(i)), 0644);
            layerPaths.add("\"" + path + "\"");
        }
        String manifest = "[{\"Config\":\"" + configName + "\",\"RepoTags\":[\"" + tag + "\"],\"Layers\":["
                + String.join(",", layerPaths) + "]}]";
        outer.file("manifest.json", manifest);
        Files.write(file, outer.build());
        return file;
    }

    /** OCI image layout shape: oci-layout, index.json, blobs/sha256/... with gzip-compressed layers. */
    static Path ociLayout(Path file, String ref, List<byte[]> layers) throws IOException {
        return ociLayout(file, ref, layers, UnaryOperator.identity());
    }

    static Path ociLayout(Path file, String ref, List<byte[]> layers, UnaryOperator<byte[]> tamper)
            throws IOException {
        return ociLayoutWithBlobs(file, ref, layers.stream().map(TarBuilder::gzip).toList(),
                "application/vnd.oci.image.layer.v1.tar+gzip", tamper);
    }

    /** OCI layout whose layer blobs are given as-is (e.g. already compressed). */
    static Path ociLayoutWithBlobs(Path file, String ref, List<byte[]> blobs, String mediaType,
                                   UnaryOperator<byte[]> tamper) throws IOException {
        TarBuilder outer = new TarBuilder().file("oci-layout", "{\"imageLayoutVersion\":\"1.0.0\"}")
                .dir("blobs").dir("blobs/sha256");
        List<String> descriptors = new ArrayList<>();
        for (byte[] blob : blobs) {
            String digest = sha256(blob);
            outer.file("blobs/sha256/" + digest.substring(7), tamper.apply(blob), 0644);
            descriptors.add("{\"mediaType\":\"" + mediaType + "\",\"digest\":\"" + digest + "\",\"size\":"
                    + blob.length + "}");
        }
        byte[] config = "{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Env\":[\"PATH=/usr/bin\"]},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[]}}"
                .getBytes(StandardCharsets.UTF_8);
        String configDigest = sha256(config);
        outer.file("blobs/sha256/" + configDigest.substring(7), config, 0644);
        byte[] manifest = ("{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                + "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1+json\",\"digest\":\""
                + configDigest + "\",\"size\":" + config.length + "},\"layers\":[" + String.join(",", descriptors)
                + "]}").getBytes(StandardCharsets.UTF_8);
        String manifestDigest = sha256(manifest);
        outer.file("blobs/sha256/" + manifestDigest.substring(7), manifest, 0644);
        String index = "{\"schemaVersion\":2,\"manifests\":[{\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                + "\"digest\":\"" + manifestDigest + "\",\"size\":" + manifest.length
                + ",\"annotations\":{\"org.opencontainers.image.ref.name\":\"" + ref + "\"}}]}";
        outer.file("index.json", index);
        Files.write(file, outer.build());
        return file;
    }
}
