package dev.paddock.agents;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.agents.SessionEventType;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Every event type reads back from its wire name; names the server does not know read as nothing. */
class SessionEventTypeTest {
    @Test
    void everyTypeRoundTripsThroughItsWireName() {
        for (SessionEventType t : SessionEventType.values()) {
            assertThat(SessionEventType.fromWire(t.wire())).as(t.name()).contains(t);
            assertThat(t.toString()).isEqualTo(t.wire());
        }
        assertThat(Arrays.stream(SessionEventType.values()).map(SessionEventType::wire).distinct()).hasSize(SessionEventType.values().length);
    }

    @Test
    void wireNamesAreTheApisDottedSnakeCase() {
        for (SessionEventType t : SessionEventType.values()) {
            assertThat(t.wire()).matches("(user|agent|session|span)\\.[a-z_]+");
            assertThat(t.wire().replace('.', '_').toUpperCase()).as("constant named after its wire name").isEqualTo(t.name());
        }
    }

    @Test
    void unknownAndMissingNamesReadAsNothing() {
        assertThat(SessionEventType.fromWire("user.shout")).isEmpty();
        assertThat(SessionEventType.fromWire("USER_MESSAGE")).isEmpty();
        assertThat(SessionEventType.fromWire(null)).isEmpty();
    }
}
