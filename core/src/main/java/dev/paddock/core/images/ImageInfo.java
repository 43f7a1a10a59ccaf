package dev.paddock.core.images;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * A stored image as recorded in {@code <imagesDir>/<name>/image.json}.
 *
 * @param source   {@code debootstrap} or {@code oci}
 * @param ref      what it was made from: {@code debian:<suite>} for debootstrap builds, the image reference
 *                 (tag or manifest digest) for OCI imports
 * @param packages extra packages asked for in a debootstrap build (empty for OCI imports)
 * @param env      the image config's environment ({@code KEY=value}) for OCI imports, empty otherwise
 */
public record ImageInfo(
        String name,
        String source,
        Instant createdAt,
        long sizeBytes,
        Path rootfs,
        String ref,
        List<String> packages,
        List<String> env) {

    public static final String SOURCE_DEBOOTSTRAP = "debootstrap";
    public static final String SOURCE_OCI = "oci";

    public ImageInfo {
        packages = packages == null ? List.of() : List.copyOf(packages);
        env = env == null ? List.of() : List.copyOf(env);
    }
}
