package dev.paddock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CappedOutputStreamTest {
    private static final class TooLarge extends IOException {}

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void passesWritesUpToTheCap() throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        CappedOutputStream out = new CappedOutputStream(sink, 4, () -> { throw new TooLarge(); });
        out.write(bytes("abc"));
        out.write('d');
        assertThat(sink.toString(StandardCharsets.UTF_8)).isEqualTo("abcd");
    }

    @Test
    void aWritePastTheCapFailsAsTheCallerSaysAndWritesNothingOfIt() throws IOException {
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        CappedOutputStream out = new CappedOutputStream(sink, 4, () -> { throw new TooLarge(); });
        out.write(bytes("ab"));
        assertThatThrownBy(() -> out.write(bytes("cde"))).isInstanceOf(TooLarge.class);
        assertThatThrownBy(() -> { out.write(bytes("cd")); out.write('e'); }).isInstanceOf(TooLarge.class);
        assertThat(sink.toString(StandardCharsets.UTF_8)).isEqualTo("abcd");
    }
}
