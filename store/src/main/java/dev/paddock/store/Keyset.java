package dev.paddock.store;

import dev.paddock.core.store.Page;
import dev.paddock.core.store.PageRequest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * Cursor pagination over one ordered key column, as in the Managed Agents API: {@code after_id} gives the items
 * that follow the cursor in the list's order, {@code before_id} those that precede it (the nearest ones), and
 * {@code has_more} says whether more lie beyond the page in the direction of travel. One extra row is fetched
 * to know that.
 *
 * @param select       {@code SELECT ... FROM ... WHERE <filter>} with its parameters in {@code filterParams}
 * @param keyColumn    the column the list is ordered by
 * @param cursorSql    SQL giving the cursor's key from one {@code ?} bound to the cursor id ({@code ?} itself
 *                     when the key is the id)
 * @param descending   true when the list runs newest (highest key) first
 */
record Keyset(String select, List<Object> filterParams, String keyColumn, String cursorSql, boolean descending) {

    <T> Page<T> fetch(Connection c, PageRequest page, RowMapper<T> mapper, Function<T, String> id) throws SQLException {
        boolean backwards = page.beforeId() != null;
        String cursor = backwards ? page.beforeId() : page.afterId();
        // Walking backwards reads in the reverse of the list's order, nearest to the cursor first.
        boolean ascending = descending == backwards;
        StringBuilder sql = new StringBuilder(select);
        List<Object> params = new ArrayList<>(filterParams);
        if (cursor != null) {
            sql.append(" AND ").append(keyColumn).append(ascending ? " > " : " < ").append(cursorSql);
            params.add(cursor);
        }
        sql.append(" ORDER BY ").append(keyColumn).append(ascending ? " ASC" : " DESC").append(" LIMIT ?");
        params.add(page.limit() + 1);

        List<T> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            Sql.bind(ps, params);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) rows.add(mapper.map(rs));
            }
        }
        boolean hasMore = rows.size() > page.limit();
        if (hasMore) rows.removeLast();
        if (backwards) Collections.reverse(rows);
        return Page.of(rows, hasMore, id);
    }
}
