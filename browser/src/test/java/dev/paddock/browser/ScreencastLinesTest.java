package dev.paddock.browser;

import static org.assertj.core.api.Assertions.assertThat;

import dev.paddock.core.spi.ExecOutput;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** What the agent sends back during a screencast is hostile: only checked, known fields pass; anything else ends the cast. */
class ScreencastLinesTest {
    final List<ObjectNode> frames = new ArrayList<>();
    final AtomicInteger ended = new AtomicInteger();
    final ExecOutput out = Screencast.lines(JsonMapper.builder().build(), frames::add, ended::incrementAndGet);

    void send(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        out.stdout(b, 0, b.length);
    }

    @Test
    void framesSplitAcrossChunksArriveWholeWithOnlyKnownFields() {
        send("{\"frame\":\"/9j/AA==\",\"url\":\"http://a/\",\"ti");
        send("tle\":\"A\",\"cookie\":\"secret\"}\n{\"url\":\"http://b/\",\"title\":\"B\"}\n");
        assertThat(frames).hasSize(2);
        assertThat(frames.get(0).propertyNames()).containsExactlyInAnyOrder("frame", "url", "title");
        assertThat(frames.get(0).path("title").asString()).isEqualTo("A");
        assertThat(frames.get(1).has("frame")).isFalse();
        assertThat(ended).hasValue(0);
    }

    @Test
    void aFrameThatIsNotBase64OrALineThatIsNotAnObjectEndsTheCast() {
        send("{\"frame\":\"<script>\"}\n{\"frame\":\"/9j/\"}\n");
        assertThat(frames).isEmpty();
        assertThat(ended).hasValue(1);

        ExecOutput other = Screencast.lines(JsonMapper.builder().build(), frames::add, ended::incrementAndGet);
        byte[] b = "[1,2]\n".getBytes(StandardCharsets.UTF_8);
        other.stdout(b, 0, b.length);
        assertThat(ended).hasValue(2);
    }

    @Test
    void aLineLongerThanTheCapEndsTheCastWithoutBeingKept() {
        byte[] big = new byte[Screencast.MAX_LINE + 10];
        java.util.Arrays.fill(big, (byte) 'A');
        out.stdout(big, 0, big.length);
        send("\n{\"url\":\"http://c/\"}\n");
        assertThat(ended).hasValue(1);
        assertThat(frames).as("nothing after the cut is read").isEmpty();
    }
}
