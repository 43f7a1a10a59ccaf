package dev.paddock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BoundedBufferTest {
    private static final byte[] ABC = "abcdefgh".getBytes(StandardCharsets.UTF_8);

    @Test
    void keepsShortOutputAsItIs() {
        BoundedBuffer buffer = new BoundedBuffer(10);
        buffer.append(ABC, 0, 5);
        assertThat(buffer.truncated()).isFalse();
        assertThat(buffer.dropped()).isZero();
        assertThat(buffer.markedText()).isEqualTo("abcde");
    }

    @Test
    void keepsTheHeadAndSaysHowMuchWasDropped() {
        BoundedBuffer buffer = new BoundedBuffer(4);
        buffer.append(ABC, 0, 3);
        buffer.append(ABC, 3, 5);
        assertThat(buffer.text()).isEqualTo("abcd");
        assertThat(buffer.dropped()).isEqualTo(4);
        assertThat(buffer.markedText()).isEqualTo("abcd\n[paddock: output truncated, 4 more bytes]\n");
    }

    @Test
    void keepsTheTailAcrossManySmallChunks() {
        BoundedBuffer buffer = new BoundedBuffer(3, true);
        for (int i = 0; i < ABC.length; i++) buffer.append(ABC, i, 1);
        assertThat(buffer.text()).isEqualTo("fgh");
        assertThat(buffer.dropped()).isEqualTo(5);
        assertThat(buffer.truncated()).isTrue();
    }

    @Test
    void aTailChunkOfExactlyTheLimitIsNotTruncated() {
        BoundedBuffer buffer = new BoundedBuffer(8, true);
        buffer.append(ABC, 0, 8);
        assertThat(buffer.text()).isEqualTo("abcdefgh");
        assertThat(buffer.truncated()).isFalse();
        buffer.append(ABC, 0, 1);
        assertThat(buffer.text()).isEqualTo("bcdefgha");
        assertThat(buffer.dropped()).isEqualTo(1);
    }
}
