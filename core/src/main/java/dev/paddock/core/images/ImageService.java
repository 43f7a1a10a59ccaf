package dev.paddock.core.images;

import java.util.List;

/**
 * The images the API offers: the port the server's image routes use. The images module implements it over the
 * image store and the sandbox records, so that an image a live sandbox of any tenant runs on cannot be deleted
 * under it.
 */
public interface ImageService {
    /** Every complete image, sorted by name. */
    List<ImageInfo> list();

    /** The image, or {@code image_not_found} (404); {@code invalid_image_name} (400) for a malformed name. */
    ImageInfo get(String name);

    /** Deletes the image; {@code image_in_use} (409) while a non-terminated sandbox uses it. */
    void delete(String name);
}
