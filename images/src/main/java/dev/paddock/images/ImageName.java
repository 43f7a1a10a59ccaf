package dev.paddock.images;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.util.regex.Pattern;

/** Image names double as directory names, so they are restricted to a small, path-safe alphabet. */
public final class ImageName {
    private static final Pattern VALID = Pattern.compile("[a-z0-9][a-z0-9._-]{0,62}");

    private ImageName() {}

    /** Returns {@code name} unchanged when valid; otherwise throws {@code invalid_image_name}. */
    public static String validate(String name) {
        if (name == null || !VALID.matcher(name).matches()) {
            throw new PaddockException(ErrorCode.INVALID_IMAGE_NAME,
                    "image name '" + Text.clip(name, 80) + "' is invalid: use 1-63 characters from a-z, 0-9, '.', '_' "
                            + "and '-', starting with a letter or digit");
        }
        return name;
    }

    public static boolean isValid(String name) {
        return name != null && VALID.matcher(name).matches();
    }
}
