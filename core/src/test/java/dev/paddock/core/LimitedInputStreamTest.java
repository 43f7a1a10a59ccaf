package dev.paddock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LimitedInputStreamTest {

    private static InputStream stream(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void upToEndsAfterItsLengthAndLeavesTheRestUnread() throws IOException {
        InputStream in = stream("hello world");
        assertThat(text(LimitedInputStream.upTo(in, 5))).isEqualTo("hello");
        assertThat(text(in)).isEqualTo(" world");
    }

    @Test
    void upToEndsWithAShorterStream() throws IOException {
        assertThat(text(LimitedInputStream.upTo(stream("abc"), 10))).isEqualTo("abc");
    }

    @Test
    void singleByteReadsCountToo() throws IOException {
        InputStream limited = LimitedInputStream.upTo(stream("abc"), 2);
        assertThat(limited.read()).isEqualTo('a');
        assertThat(limited.read()).isEqualTo('b');
        assertThat(limited.read()).isEqualTo(-1);
    }

    @Test
    void availableNeverPromisesBytesPastTheLength() throws IOException {
        assertThat(LimitedInputStream.upTo(stream("hello world"), 4).available()).isEqualTo(4);
    }

    @Test
    void exactlyReadsItsLengthAndNoMore() throws IOException {
        InputStream in = stream("abcdef");
        assertThat(text(LimitedInputStream.exactly(in, 4, "short"))).isEqualTo("abcd");
        assertThat(text(in)).isEqualTo("ef");
    }

    @Test
    void exactlyFailsWhenTheStreamEndsFirst() {
        assertThatThrownBy(() -> text(LimitedInputStream.exactly(stream("abc"), 5, "the archive ends early")))
                .isInstanceOf(IOException.class)
                .hasMessage("the archive ends early");
    }
}
