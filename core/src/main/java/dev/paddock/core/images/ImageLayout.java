package dev.paddock.core.images;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What images may be called and where they live: {@code <data-dir>/images/<name>/rootfs}, written by the images
 * module and read by drivers that run sandboxes on an image. Names double as directory names, so they are
 * restricted to a small, path-safe alphabet.
 *
 * @param imagesDir the directory holding one directory per image
 */
public record ImageLayout(Path imagesDir) {
    /** The images' directory under the data directory. */
    public static final String IMAGES = "images";
    /** An image's root filesystem inside its directory. */
    public static final String ROOTFS = "rootfs";
    private static final Pattern VALID_NAME = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

    public ImageLayout {
        imagesDir = Objects.requireNonNull(imagesDir, "imagesDir").toAbsolutePath().normalize();
    }

    /** The layout of a data directory: {@code <dataDir>/images}. */
    public static ImageLayout inDataDir(Path dataDir) {
        return new ImageLayout(dataDir.resolve(IMAGES));
    }

    /** The directory of image {@code name} (its rootfs and metadata); throws {@code invalid_image_name} for a bad name. */
    public Path dir(String name) {
        return imagesDir.resolve(validateName(name));
    }

    /** The root filesystem of image {@code name}; throws {@code invalid_image_name} for a bad name. */
    public Path rootfs(String name) {
        return dir(name).resolve(ROOTFS);
    }

    /** Returns {@code name} unchanged when valid; otherwise throws {@code invalid_image_name}. */
    public static String validateName(String name) {
        if (!isValidName(name)) {
            throw new PaddockException(ErrorCode.INVALID_IMAGE_NAME,
                    "image name '" + Text.clip(name, 80) + "' is invalid: use 1-63 characters from a-z, 0-9, '.', '_' "
                            + "and '-', starting with a letter or digit");
        }
        return name;
    }

    public static boolean isValidName(String name) {
        return name != null && VALID_NAME.matcher(name).matches();
    }
}
