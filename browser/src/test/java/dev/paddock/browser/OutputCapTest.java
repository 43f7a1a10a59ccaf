package dev.paddock.browser;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputCapTest {
    @Test
    void keepsShortOutputAsItIs() {
        OutputCap cap = new OutputCap(10);
        byte[] b = "hello".getBytes(StandardCharsets.UTF_8);
        cap.add(b, 0, b.length);
        assertThat(cap.truncated()).isFalse();
        assertThat(cap.text()).isEqualTo("hello");
    }

    @Test
    void cutsAtTheLimitAndSaysHowMuchWasDropped() {
        OutputCap cap = new OutputCap(4);
        byte[] b = "abcdefgh".getBytes(StandardCharsets.UTF_8);
        cap.add(b, 0, 3);
        cap.add(b, 3, 5);
        assertThat(cap.truncated()).isTrue();
        assertThat(cap.text()).isEqualTo("abcd\n[paddock: output truncated, 4 more bytes]\n");
    }
}
