package dev.paddock.app.cli;

import dev.paddock.app.client.Terminal;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain text table with a header row and columns padded to their widest cell. */
public final class Table {
    private final List<String[]> rows = new ArrayList<>();
    private final int columns;

    public Table(String... header) {
        this.columns = header.length;
        rows.add(header);
    }

    public Table row(Object... cells) {
        String[] r = new String[columns];
        for (int i = 0; i < columns; i++) r[i] = i < cells.length && cells[i] != null ? clean(String.valueOf(cells[i])) : "";
        rows.add(r);
        return this;
    }

    public int size() { return rows.size() - 1; }

    public void print(PrintWriter out) {
        int[] width = new int[columns];
        for (String[] r : rows) for (int i = 0; i < columns; i++) width[i] = Math.max(width[i], r[i].length());
        for (String[] r : rows) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                sb.append(r[i]);
                if (i < columns - 1) sb.append(" ".repeat(width[i] - r[i].length() + 2));
            }
            out.println(sb.toString().stripTrailing());
        }
        out.flush();
    }

    /** Values can come from a sandbox (file names): never let control characters reach the terminal. */
    static String clean(String s) {
        return Terminal.escape(s);
    }
}
