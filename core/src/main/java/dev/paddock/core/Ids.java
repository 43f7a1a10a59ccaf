package dev.paddock.core;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.regex.Pattern;

/**
 * Type-prefixed identifiers ({@code sbx_…}, {@code cp_…}) that sort by creation time: 10 characters of
 * millisecond timestamp then 16 random characters, in Crockford base32 (lower case). Sorting by id is
 * therefore sorting by creation, which keeps cursor pagination simple. Within one millisecond an id is the previous
 * one plus one (as monotonic ULIDs are), so ids made in the same millisecond by this process also sort in the order
 * they were made.
 */
public final class Ids {
    private static final char[] ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Pattern SHAPE = Pattern.compile("[a-z]{2,8}_[0-9a-z]{26}");

    private Ids() {}

    public static String newId(String prefix) {
        return newId(prefix, Instant.now());
    }

    private static final long FORTY_BITS = (1L << 40) - 1;
    private static long lastTime = -1;
    private static long lastHi;
    private static long lastLo;

    public static String newId(String prefix, Instant at) {
        char[] out = new char[26];
        long time = at.toEpochMilli();
        long hi, lo;
        synchronized (Ids.class) {
            if (time == lastTime) {
                // the next value of the 80 random bits: same millisecond, later id
                lastLo = (lastLo + 1) & FORTY_BITS;
                if (lastLo == 0) lastHi = (lastHi + 1) & FORTY_BITS;
            } else {
                byte[] random = new byte[10];
                RANDOM.nextBytes(random);
                lastHi = 0;
                lastLo = 0;
                for (int i = 0; i < 5; i++) lastHi = (lastHi << 8) | (random[i] & 0xff);
                for (int i = 5; i < 10; i++) lastLo = (lastLo << 8) | (random[i] & 0xff);
                lastTime = time;
            }
            hi = lastHi;
            lo = lastLo;
        }
        for (int i = 9; i >= 0; i--) {
            out[i] = ALPHABET[(int) (time & 31)];
            time >>>= 5;
        }
        for (int i = 17; i >= 10; i--) { out[i] = ALPHABET[(int) (hi & 31)]; hi >>>= 5; }
        for (int i = 25; i >= 18; i--) { out[i] = ALPHABET[(int) (lo & 31)]; lo >>>= 5; }
        return prefix + "_" + new String(out);
    }

    /** True when {@code id} has the shape of an id with this prefix (used to reject garbage before a lookup). */
    public static boolean isValid(String prefix, String id) {
        return id != null && id.startsWith(prefix + "_") && SHAPE.matcher(id).matches();
    }

    /** Throws a 400 that names the parameter when {@code id} is not an id of this kind. */
    public static String require(String prefix, String id, String parameter) {
        if (!isValid(prefix, id)) {
            throw new PaddockException(ErrorCode.INVALID_ID,
                    parameter + " must be an id like " + prefix + "_0123456789abcdefghjkmnpqrs, got '" + Text.clip(id, 60) + "'");
        }
        return id;
    }
}
