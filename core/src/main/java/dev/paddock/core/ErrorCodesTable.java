package dev.paddock.core;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Renders the {@link ErrorCode} catalogue as the Markdown table in docs/API.md, between {@link #BEGIN} and
 * {@link #END}. Deterministic (by HTTP status, then code), so a test can tell when the file on disk is stale.
 */
public final class ErrorCodesTable {
    public static final String REGENERATE_HINT =
            "./mvnw -B -q -pl core test -Dtest=ErrorCodesDocTest -Dpaddock.regenerate-docs=true";
    public static final String BEGIN = "<!-- error-codes: generated from core/src/main/java/dev/paddock/core/ErrorCode.java"
            + " by ErrorCodesDocTest; do not edit by hand. Regenerate with: " + REGENERATE_HINT + " -->";
    public static final String END = "<!-- error-codes: end -->";

    private ErrorCodesTable() {}

    public static String render() {
        StringBuilder md = new StringBuilder(BEGIN).append('\n');
        md.append("| `error.code` | HTTP | `error.type` | meaning |\n");
        md.append("|---|---|---|---|\n");
        Arrays.stream(ErrorCode.values())
                .sorted(Comparator.comparingInt(ErrorCode::httpStatus).thenComparing(ErrorCode::wire))
                .forEach(c -> md.append("| `").append(c.wire()).append("` | ").append(c.httpStatus()).append(" | `")
                        .append(c.type().wireName()).append("` | ").append(c.meaning()).append(" |\n"));
        return md.append(END).toString();
    }

    /** {@code doc} with the text between the markers (the markers included) replaced by {@link #render()}. */
    public static String replaceIn(String doc) {
        int begin = doc.indexOf("<!-- error-codes: generated");
        int end = doc.indexOf(END);
        if (begin < 0 || end < begin) throw new IllegalArgumentException("the document has no error-codes markers");
        return doc.substring(0, begin) + render() + doc.substring(end + END.length());
    }
}
