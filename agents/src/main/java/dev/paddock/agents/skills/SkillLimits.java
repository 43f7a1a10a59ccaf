package dev.paddock.agents.skills;

/**
 * What one skill version may hold: its files together at most {@code maxTotalBytes}, at most {@code maxFiles} of them.
 * The defaults follow Anthropic's Skills API (8 MiB per upload).
 */
public record SkillLimits(long maxTotalBytes, int maxFiles) {
    public static final SkillLimits DEFAULTS = new SkillLimits(8L << 20, 500);

    public SkillLimits {
        if (maxTotalBytes < 1 || maxFiles < 1) throw new IllegalArgumentException("skill limits must be positive");
    }
}
