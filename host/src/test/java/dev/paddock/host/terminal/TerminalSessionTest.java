package dev.paddock.host.terminal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.access.Principal;
import dev.paddock.core.PaddockException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a terminal keeps for the next client while nobody is attached, and how clients take turns. */
class TerminalSessionTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** A client that records what reached it, in order. */
    static final class Recorder implements TerminalViewer {
        final List<String> seen = new ArrayList<>();
        @Override public void output(byte[] data) { seen.add(new String(data, StandardCharsets.UTF_8)); }
        @Override public void exited(Integer exitCode) { seen.add("exit:" + exitCode); }
        @Override public void replaced() { seen.add("replaced"); }
    }

    static TerminalSession session(int cap) {
        return new TerminalSession("pty_0000000000000000000000000a", new Principal("t", "k", false), "sbx_x", List.of("bash"), 24, 80, T0, cap);
    }

    static void write(TerminalSession s, String text) {
        byte[] b = ("xx" + text + "yy").getBytes(StandardCharsets.UTF_8);
        s.stdout(b, 2, b.length - 4); // an offset into a larger array, as drivers pass it
    }

    @Test
    void outputWhileNobodyIsAttachedReachesTheNextClientInOrder() {
        TerminalSession s = session(1024);
        write(s, "one ");
        write(s, "two");
        Recorder r = new Recorder();
        s.attach(r);
        write(s, " three");
        assertThat(r.seen).containsExactly("one ", "two", " three");
        assertThat(s.view().attached()).isTrue();
    }

    @Test
    void pastTheCapTheOldestOutputGoesAndTheClientIsToldSo() {
        TerminalSession s = session(8);
        write(s, "aaaa");
        write(s, "bbbb");
        write(s, "cccc");
        Recorder r = new Recorder();
        s.attach(r);
        assertThat(r.seen).hasSize(3);
        assertThat(r.seen.getFirst()).contains("earlier output was dropped");
        assertThat(r.seen.subList(1, 3)).containsExactly("bbbb", "cccc");
    }

    @Test
    void aSecondClientReplacesTheFirstAndADetachedClientGetsNothingMore() {
        TerminalSession s = session(1024);
        Recorder first = new Recorder(), second = new Recorder();
        s.attach(first);
        s.attach(second);
        write(s, "after");
        assertThat(first.seen).containsExactly("replaced");
        assertThat(second.seen).containsExactly("after");
        s.detach(first, T0); // a late close of the replaced client does not detach the new one
        assertThat(s.view().attached()).isTrue();
        s.detach(second, T0.plusSeconds(5));
        assertThat(s.idleSince(T0.plusSeconds(10))).isTrue();
        assertThat(s.idleSince(T0.plusSeconds(5))).isFalse();
        write(s, "kept");
        Recorder third = new Recorder();
        s.attach(third);
        assertThat(third.seen).containsExactly("kept");
    }

    @Test
    void inputToATerminalWithoutARunningCommandIsRefusedClearly() {
        TerminalSession s = session(1024);
        assertThatThrownBy(() -> s.input("x".getBytes(StandardCharsets.UTF_8))).isInstanceOf(PaddockException.class)
                .hasMessageContaining("has ended");
    }
}
