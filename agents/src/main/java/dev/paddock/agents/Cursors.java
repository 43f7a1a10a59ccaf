package dev.paddock.agents;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The SDKs' opaque page cursors ({@code page} in, {@code next_page}/{@code prev_page} out) over the store's
 * id cursors: a cursor is {@code a:<id>} (items after id) or {@code b:<id>} (items before id), base64url-encoded.
 */
public final class Cursors {
    private Cursors() {}

    public static PageRequest request(String page, Integer limit, int defaultLimit) {
        int l = limit == null ? defaultLimit : limit;
        if (page == null || page.isBlank()) return new PageRequest(l, null, null);
        String raw;
        try {
            raw = new String(Base64.getUrlDecoder().decode(page), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new PaddockException(ErrorCode.INVALID_CURSOR, "page '" + Text.clip(page, 60) + "' is not a cursor this server gave out");
        }
        if (raw.startsWith("a:") && raw.length() > 2) return new PageRequest(l, raw.substring(2), null);
        if (raw.startsWith("b:") && raw.length() > 2) return new PageRequest(l, null, raw.substring(2));
        throw new PaddockException(ErrorCode.INVALID_CURSOR, "page '" + Text.clip(page, 60) + "' is not a cursor this server gave out");
    }

    /** The cursor of the page after this one, or null at the end. */
    public static String next(Page<?> page, PageRequest request) {
        boolean backwards = request.beforeId() != null;
        if (page.lastId() == null) return null;
        if (!backwards && !page.hasMore()) return null;
        return encode("a:" + page.lastId());
    }

    /** The cursor of the page before this one, or null at the start. */
    public static String prev(Page<?> page, PageRequest request) {
        boolean backwards = request.beforeId() != null;
        if (page.firstId() == null) return null;
        if (backwards ? !page.hasMore() : request.afterId() == null) return null;
        return encode("b:" + page.firstId());
    }

    private static String encode(String s) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(s.getBytes(StandardCharsets.UTF_8));
    }
}
