package dev.paddock.app.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the human units the CLI and the config accept: durations like 30s/10m/1h/2d and sizes like 512m/1g. */
public final class Units {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)?");
    private static final Pattern SIZE = Pattern.compile("(\\d{1,15})([kmgt])?i?b?");

    private Units() {}

    /** A positive duration; a bare number means seconds. */
    public static Duration duration(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        Matcher m = DURATION.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; use a number with s, m, h or d, e.g. 30s, 10m, 1h, 2d");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        Duration d = switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
        if (d.isZero()) throw new IllegalArgumentException("'" + text + "' is zero; a duration must be positive");
        return d;
    }

    /** A size in bytes; k, m, g, t are powers of 1024 (512m = 512 MiB), a bare number means bytes. */
    public static long size(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        Matcher m = SIZE.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size; use bytes or a number with k, m or g, e.g. 512m, 1g");
        }
        long n = Long.parseLong(m.group(1));
        int shift = m.group(2) == null ? 0 : switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            default -> 40;
        };
        if (shift > 0 && n > (Long.MAX_VALUE >> shift)) throw new IllegalArgumentException("'" + text + "' is too large");
        if (n == 0) throw new IllegalArgumentException("'" + text + "' is zero; a size must be positive");
        return n << shift;
    }

    /** 536870912 → "512m", 1536 → "1.5k": short and exact enough for a table. */
    public static String formatSize(long bytes) {
        String[] units = {"", "k", "m", "g", "t"};
        double v = bytes;
        int i = 0;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return (v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.1f", v)) + units[i];
    }

    /** 3725 s → "1h2m": the two largest units. */
    public static String formatDuration(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 60) return s + "s";
        if (s < 3600) return (s / 60) + "m" + (s % 60 == 0 ? "" : (s % 60) + "s");
        if (s < 86400) return (s / 3600) + "h" + ((s % 3600) / 60 == 0 ? "" : ((s % 3600) / 60) + "m");
        return (s / 86400) + "d" + ((s % 86400) / 3600 == 0 ? "" : ((s % 86400) / 3600) + "h");
    }

    /** picocli converter for durations. */
    public static final class DurationConverter implements picocli.CommandLine.ITypeConverter<Duration> {
        @Override public Duration convert(String value) {
            try {
                return duration(value);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** picocli converter for sizes. */
    public static final class SizeConverter implements picocli.CommandLine.ITypeConverter<Long> {
        @Override public Long convert(String value) {
            try {
                return size(value);
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }
}
