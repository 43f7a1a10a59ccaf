package dev.paddock.images;

import dev.paddock.core.ErrorType;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;

/** The stable error codes of this module, each with a message that says what to do. */
final class ImageErrors {
    private ImageErrors() {}

    static PaddockException notFound(String name) {
        return new PaddockException(ErrorType.NOT_FOUND, "image_not_found",
                "image '" + Text.clip(name, 80) + "' does not exist; list images to see the available names");
    }

    static PaddockException exists(String name) {
        return PaddockException.conflict("image_exists",
                "image '" + Text.clip(name, 80) + "' already exists; delete it first or pick another name");
    }

    static PaddockException busy(String name) {
        return PaddockException.conflict("image_busy",
                "image '" + Text.clip(name, 80) + "' is being built or imported right now; try again when that finishes");
    }

    static PaddockException buildFailed(String message) {
        return new PaddockException(ErrorType.API, "image_build_failed", message);
    }

    static PaddockException buildFailed(String message, Throwable cause) {
        return new PaddockException(ErrorType.API, "image_build_failed", message, cause);
    }

    static PaddockException invalidArchive(String message) {
        return PaddockException.invalid("invalid_image_archive", message);
    }

    /** An entry that would escape the rootfs or write through a link: refused, never "fixed up". */
    static PaddockException unsafeEntry(String entry, String why) {
        return PaddockException.invalid("unsafe_image_entry",
                "archive entry '" + Text.clip(entry, 200) + "' was refused: " + why);
    }

    static PaddockException digestMismatch(String what, String expected, String actual) {
        return PaddockException.invalid("image_digest_mismatch",
                what + " has digest " + actual + " but the manifest says " + expected
                        + "; the archive is corrupt or was tampered with");
    }

    static PaddockException tooLarge(String message) {
        return new PaddockException(ErrorType.REQUEST_TOO_LARGE, "image_too_large", message);
    }

    static PaddockException unsupported(String message) {
        return PaddockException.invalid("unsupported_image_format", message);
    }

    static PaddockException precondition(String code, String message) {
        return new PaddockException(ErrorType.PRECONDITION_FAILED, code, message);
    }
}
