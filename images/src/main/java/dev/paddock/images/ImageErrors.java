package dev.paddock.images;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;

/** The stable error codes of this module, each with a message that says what to do. */
final class ImageErrors {
    private ImageErrors() {}

    static PaddockException notFound(String name) {
        return new PaddockException(ErrorCode.IMAGE_NOT_FOUND,
                "image '" + Text.clip(name, 80) + "' does not exist; list images to see the available names");
    }

    static PaddockException exists(String name) {
        return new PaddockException(ErrorCode.IMAGE_EXISTS,
                "image '" + Text.clip(name, 80) + "' already exists; delete it first or pick another name");
    }

    static PaddockException busy(String name) {
        return new PaddockException(ErrorCode.IMAGE_BUSY,
                "image '" + Text.clip(name, 80) + "' is being built or imported right now; try again when that finishes");
    }

    static PaddockException buildFailed(String message) {
        return new PaddockException(ErrorCode.IMAGE_BUILD_FAILED, message);
    }

    static PaddockException buildFailed(String message, Throwable cause) {
        return new PaddockException(ErrorCode.IMAGE_BUILD_FAILED, message, cause);
    }

    static PaddockException invalidArchive(String message) {
        return new PaddockException(ErrorCode.INVALID_IMAGE_ARCHIVE, message);
    }

    /** An entry that would escape the rootfs or write through a link: refused, never "fixed up". */
    static PaddockException unsafeEntry(String entry, String why) {
        return new PaddockException(ErrorCode.UNSAFE_IMAGE_ENTRY,
                "archive entry '" + Text.clip(entry, 200) + "' was refused: " + why);
    }

    static PaddockException digestMismatch(String what, String expected, String actual) {
        return new PaddockException(ErrorCode.IMAGE_DIGEST_MISMATCH,
                what + " has digest " + actual + " but the manifest says " + expected
                        + "; the archive is corrupt or was tampered with");
    }

    static PaddockException tooLarge(String message) {
        return new PaddockException(ErrorCode.IMAGE_TOO_LARGE, message);
    }

    static PaddockException unsupported(String message) {
        return new PaddockException(ErrorCode.UNSUPPORTED_IMAGE_FORMAT, message);
    }

    static PaddockException precondition(ErrorCode code, String message) {
        return new PaddockException(code, message);
    }
}
