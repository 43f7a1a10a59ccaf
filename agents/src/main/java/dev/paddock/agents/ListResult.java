package dev.paddock.agents;

import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One page of wire objects with the SDKs' cursors. */
public record ListResult(List<Map<String, Object>> data, String nextPage, String prevPage, boolean hasMore, String firstId, String lastId) {
    /** The wire shape: {@code data}, {@code next_page}, {@code prev_page} plus the id cursors for plain clients. */
    public Map<String, Object> toWire() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("data", data);
        m.put("next_page", nextPage);
        m.put("prev_page", prevPage);
        m.put("has_more", hasMore);
        m.put("first_id", firstId);
        m.put("last_id", lastId);
        return m;
    }

    static ListResult of(Page<Map<String, Object>> page, PageRequest request) {
        return new ListResult(page.data(), Cursors.next(page, request), Cursors.prev(page, request), page.hasMore(), page.firstId(), page.lastId());
    }
}
