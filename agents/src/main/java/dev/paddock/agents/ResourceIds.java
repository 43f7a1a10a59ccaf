package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.util.regex.Pattern;

/**
 * Ids in path and body parameters of the Managed Agents API. The official SDKs' ids are a prefix and a base62 body
 * ({@code sesn_011CZkZAtmR3yMPDzynEDxu7}), Paddock's a prefix and 26 lower-case base32 characters; any id with the
 * right prefix and a plausible body is looked up, so one that does not exist is a 404 like the SDKs expect. Only what
 * is clearly no id (another prefix, other characters, an absurd length) is a 400.
 */
final class ResourceIds {
    private static final Pattern BODY = Pattern.compile("[0-9A-Za-z]{1,64}");

    private ResourceIds() {}

    static boolean isPlausible(String prefix, String id) {
        return id != null && id.startsWith(prefix + "_") && BODY.matcher(id).region(prefix.length() + 1, id.length()).matches();
    }

    /** Throws a 400 that names the parameter when {@code id} cannot be an id of this kind. */
    static String require(String prefix, String id, String parameter) {
        if (!isPlausible(prefix, id)) {
            throw new PaddockException(ErrorCode.INVALID_ID,
                    parameter + " must be an id like " + prefix + "_0123456789abcdefghjkmnpqrs, got '" + Text.clip(id, 60) + "'");
        }
        return id;
    }
}
