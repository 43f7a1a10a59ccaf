package dev.paddock.agents.mcp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The names MCP tools carry toward the model: {@code mcp__<server>__<tool>}, so tools of different servers (and the
 * built-in and custom tools beside them) never clash. Characters a Messages API tool name cannot hold become
 * {@code _}; a name longer than the API's 64 characters is cut and ends in a hash of the whole, so it stays the same
 * for the same server and tool. Events keep the server's name and the tool's own name apart.
 */
public final class McpToolNames {
    public static final String PREFIX = "mcp__";
    static final int MAX = 64;

    private McpToolNames() {}

    public static String qualified(String server, String tool) {
        String name = PREFIX + clean(server) + "__" + clean(tool);
        if (name.length() <= MAX) return name;
        return name.substring(0, MAX - 9) + "_" + hash(server + "\u0000" + tool);
    }

    /** True for a name {@link #qualified} made (custom tools may not start so). */
    public static boolean isQualified(String name) {
        return name != null && name.startsWith(PREFIX);
    }

    private static String clean(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (char c : s.toCharArray()) out.append(Character.isLetterOrDigit(c) && c < 128 || c == '_' || c == '-' ? c : '_');
        return out.toString();
    }

    private static String hash(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
