package dev.paddock.server.http;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * What every JSON request body must satisfy beyond being well-formed: no {@code null} inside an array (no endpoint
 * gives one a meaning, and code that walks a list should not have to expect it), integers that fit in 64 bits and
 * finite numbers ({@code 1e400} reads as infinity). A failure names the field.
 */
final class JsonChecks {
    private JsonChecks() {}

    static void check(JsonNode node, String path) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                check(e.getValue(), path.isEmpty() ? Text.clip(e.getKey(), 60) : path + "." + Text.clip(e.getKey(), 60));
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                JsonNode item = node.get(i);
                String where = path + "[" + i + "]";
                if (item == null || item.isNull()) {
                    throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + where + "' must not be null");
                }
                check(item, where);
            }
        } else if (node.isNumber()) {
            if (node.isIntegralNumber() && !node.canConvertToLong()) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + path + "' is out of range: integers must fit in 64 bits");
            }
            if (node.isFloatingPointNumber() && !Double.isFinite(node.asDouble())) {
                throw new PaddockException(ErrorCode.INVALID_FIELD, "field '" + path + "' is out of range: numbers must be finite");
            }
        }
    }
}
