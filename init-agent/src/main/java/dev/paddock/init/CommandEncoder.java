package dev.paddock.init;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.spi.ExecRequest;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Encodes a command for the init agent: timeout_ms u32, cwd, argc u32, argv..., envc u32, env "K=V"...; every
 * string is u32 length + UTF-8 bytes. Refuses what init would refuse, with a message that says what to fix.
 */
final class CommandEncoder {
    static final int MAX_ENTRIES = 4096;

    private CommandEncoder() {}

    static byte[] encode(ExecRequest r, Duration initTimeout) {
        if (!r.cwd().startsWith("/")) throw new PaddockException(ErrorCode.INVALID_CWD, "cwd must be an absolute path inside the sandbox, got '" + Text.clip(r.cwd(), 80) + "'");
        if (r.argv().size() > MAX_ENTRIES) throw new PaddockException(ErrorCode.ARGV_TOO_LONG, "argv may have at most " + MAX_ENTRIES + " entries");
        if (r.env().size() > MAX_ENTRIES) throw new PaddockException(ErrorCode.ENV_TOO_LARGE, "env may have at most " + MAX_ENTRIES + " entries");
        if (r.argv().getFirst().isEmpty()) throw new PaddockException(ErrorCode.INVALID_ARGV, "argv[0] must name a program");
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        u32(out, timeoutMillis(initTimeout));
        str(out, r.cwd(), "cwd", ErrorCode.INVALID_CWD);
        u32(out, r.argv().size());
        for (String a : r.argv()) str(out, a, "argv", ErrorCode.INVALID_ARGV);
        u32(out, r.env().size());
        for (Map.Entry<String, String> e : r.env().entrySet()) {
            String k = e.getKey();
            if (k.isEmpty() || k.indexOf('=') >= 0) throw new PaddockException(ErrorCode.INVALID_ENV, "environment variable names must be non-empty and contain no '=', got '" + Text.clip(k, 60) + "'");
            str(out, k + "=" + (e.getValue() == null ? "" : e.getValue()), "env", ErrorCode.INVALID_ENV);
        }
        if (out.size() > Frame.MAX_PAYLOAD) throw new PaddockException(ErrorCode.EXEC_REQUEST_TOO_LARGE, "argv, env and cwd together must stay under 1 MiB");
        return out.toByteArray();
    }

    /** Decodes an argv list as encoded above (argc u32 then strings); used for background process listings. */
    static List<String> decodeArgv(ByteBuffer b) {
        if (b.remaining() == 0) return List.of();
        int argc = b.getInt();
        if (argc < 0 || argc > MAX_ENTRIES) throw InitProtocolException.malformed("argv");
        String[] argv = new String[argc];
        for (int i = 0; i < argc; i++) {
            int n = b.getInt();
            if (n < 0 || n > b.remaining()) throw InitProtocolException.malformed("argv");
            byte[] s = new byte[n];
            b.get(s);
            argv[i] = new String(s, StandardCharsets.UTF_8);
        }
        return List.of(argv);
    }

    private static int timeoutMillis(Duration d) {
        if (d == null || d.isZero() || d.isNegative()) return 0;
        long ms = d.toMillis();
        return ms >= 0xFFFF_FFF0L ? (int) 0xFFFF_FFF0L : (int) Math.max(1, ms);
    }

    private static void str(ByteArrayOutputStream out, String s, String field, ErrorCode nulCode) {
        if (s.indexOf('\0') >= 0) throw new PaddockException(nulCode, field + " must not contain NUL characters");
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > Frame.MAX_PAYLOAD) throw new PaddockException(ErrorCode.EXEC_REQUEST_TOO_LARGE, field + " is longer than 1 MiB");
        u32(out, b.length);
        out.writeBytes(b);
    }

    private static void u32(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24); out.write(v >>> 16); out.write(v >>> 8); out.write(v);
    }
}
