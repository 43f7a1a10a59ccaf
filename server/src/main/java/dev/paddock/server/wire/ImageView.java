package dev.paddock.server.wire;

import dev.paddock.core.images.ImageInfo;
import java.time.Instant;
import java.util.List;

/**
 * An image as the API shows it. The host path of its rootfs and the image's own environment stay out: images are
 * shared by every tenant and neither is needed to use one.
 */
public record ImageView(String type, String name, String source, String ref, List<String> packages, Long sizeBytes, Instant createdAt) {
    public static ImageView of(ImageInfo i) {
        return new ImageView("image", i.name(), i.source(), i.ref(), i.packages(), i.sizeBytes() < 0 ? null : i.sizeBytes(), i.createdAt());
    }
}
