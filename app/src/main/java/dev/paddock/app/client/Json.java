package dev.paddock.app.client;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.MissingNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The CLI's JSON: trees read and written with jackson-core's streaming parser and generator. A client command is a
 * whole JVM per call, and setting up databind's mapper (its serializers, the java.time formats) would cost it more
 * than its request; only the tree classes of databind are used.
 */
public final class Json {
    private static final JsonFactory FACTORY = new JsonFactory();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Json() {}

    public static ObjectNode object() { return NODES.objectNode(); }

    public static ArrayNode array() { return NODES.arrayNode(); }

    /** The tree of {@code json}, a missing node for no content; a {@code JacksonException} when it is not JSON. */
    public static JsonNode read(byte[] json) {
        try (JsonParser p = FACTORY.createParser(ObjectReadContext.empty(), json)) {
            JsonToken first = p.nextToken();
            if (first == null) return MissingNode.getInstance();
            JsonNode node = value(p, first);
            if (p.nextToken() != null) throw new StreamReadException(p, "trailing content after the JSON value");
            return node;
        }
    }

    public static JsonNode read(String json) {
        return read(json.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] bytes(JsonNode node) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = FACTORY.createGenerator(ObjectWriteContext.empty(), out)) {
            write(g, node);
        }
        return out.toByteArray();
    }

    public static String string(JsonNode node) {
        return new String(bytes(node), StandardCharsets.UTF_8);
    }

    private static JsonNode value(JsonParser p, JsonToken token) {
        return switch (token) {
            case START_OBJECT -> {
                ObjectNode o = NODES.objectNode();
                for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
                    String name = p.currentName();
                    o.set(name, value(p, p.nextToken()));
                }
                yield o;
            }
            case START_ARRAY -> {
                ArrayNode a = NODES.arrayNode();
                for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) a.add(value(p, t));
                yield a;
            }
            case VALUE_STRING -> NODES.stringNode(p.getString());
            case VALUE_NUMBER_INT -> switch (p.getNumberType()) {
                case INT -> NODES.numberNode(p.getIntValue());
                case LONG -> NODES.numberNode(p.getLongValue());
                default -> NODES.numberNode(p.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> NODES.numberNode(p.getDoubleValue());
            case VALUE_TRUE -> NODES.booleanNode(true);
            case VALUE_FALSE -> NODES.booleanNode(false);
            case VALUE_NULL -> NODES.nullNode();
            default -> throw new StreamReadException(p, "unexpected JSON token " + token);
        };
    }

    private static void write(JsonGenerator g, JsonNode node) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                g.writeStartObject();
                for (Map.Entry<String, JsonNode> field : node.properties()) {
                    g.writeName(field.getKey());
                    write(g, field.getValue());
                }
                g.writeEndObject();
            }
            case ARRAY -> {
                g.writeStartArray();
                for (JsonNode item : node) write(g, item);
                g.writeEndArray();
            }
            case STRING -> g.writeString(node.asString());
            case NUMBER -> {
                if (node.isIntegralNumber()) g.writeNumber(node.bigIntegerValue());
                else if (node.isBigDecimal()) g.writeNumber(node.decimalValue());
                else g.writeNumber(node.doubleValue());
            }
            case BOOLEAN -> g.writeBoolean(node.booleanValue());
            case BINARY -> g.writeBinary(node.binaryValue());
            default -> g.writeNull(); // null, and missing where a value is expected
        }
    }
}
