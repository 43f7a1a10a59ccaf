package dev.paddock.app.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The CLI's streaming JSON reads and writes trees exactly as databind's mapper does. */
class JsonTest {
    private static final JsonMapper MAPPER = JsonMapper.builder().build();
    private static final String SAMPLE = "{\"id\":\"sbx_1\",\"n\":42,\"big\":12345678901234,\"huge\":123456789012345678901234567890,"
            + "\"cpus\":0.5,\"e\":1.0E10,\"ok\":true,\"no\":false,\"nil\":null,\"text\":\"tab\\t quote\\\" é \\u2603 \\ud83d\\ude00\","
            + "\"list\":[1,\"two\",[],{}],\"nested\":{\"a\":{\"b\":[null,-3]}}}";

    @Test
    void readsTheTreeTheMapperReads() {
        JsonNode ours = Json.read(SAMPLE);
        assertThat(ours).isEqualTo(MAPPER.readTree(SAMPLE));
        assertThat(ours.path("big").isLong()).isTrue();
        assertThat(ours.path("huge").isBigInteger()).isTrue();
    }

    @Test
    void writesWhatTheMapperWrites() {
        JsonNode tree = MAPPER.readTree(SAMPLE);
        assertThat(Json.string(tree)).isEqualTo(MAPPER.writeValueAsString(tree));
        assertThat(Json.bytes(Json.object().put("argv", "x"))).isEqualTo(MAPPER.writeValueAsBytes(MAPPER.createObjectNode().put("argv", "x")));
    }

    @Test
    void emptyContentIsMissingAndMalformedContentFails() {
        assertThat(Json.read(new byte[0]).isMissingNode()).isTrue();
        assertThatThrownBy(() -> Json.read("{\"a\":")).isInstanceOf(JacksonException.class);
        assertThatThrownBy(() -> Json.read("<html>")).isInstanceOf(JacksonException.class);
        assertThatThrownBy(() -> Json.read("{} {}")).isInstanceOf(JacksonException.class);
    }
}
