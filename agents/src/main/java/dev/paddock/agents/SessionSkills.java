package dev.paddock.agents;

import dev.paddock.access.Principal;
import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.host.RuntimeHost;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A session's skills, disclosed in steps as Anthropic's skills are: the system prompt lists each skill's name,
 * description and where its SKILL.md is; the model reads SKILL.md (and the files it points to) with its tools when a
 * task calls for it. Paddock lays each pinned version's files into the session's sandbox at
 * {@code /workspace/skills/<name>/} when the sandbox is made, through the workspace's tar import, so every driver
 * with a workspace takes them. A self-hosted worker lays them itself under its working directory's
 * {@code skills/<name>/} (the official SDKs' worker downloads them from {@code /v1/skills}), which is the place the
 * prompt names for those sessions.
 */
final class SessionSkills {
    static final String DIR = "/workspace/skills";

    private final RuntimeHost host;
    private final SkillService skills;

    SessionSkills(RuntimeHost host, SkillService skills) {
        this.host = host;
        this.skills = skills;
    }

    /** Unpacks every pinned version into the sandbox's {@code /workspace/skills/}; a version deleted since is an error. */
    void layInto(Principal owner, String sandboxId, List<AgentSkill> pinned) {
        for (AgentSkill s : pinned) {
            SkillService.Version v = skills.version(owner.tenantId(), s).orElseThrow(() -> missing(s));
            try (InputStream in = skills.archives().open(v.skillId(), v.version())) {
                host.workspace(owner, sandboxId).importTar(DIR, in);
            } catch (IOException e) {
                throw new UncheckedIOException("laying skill " + v.name() + " into the sandbox failed", e);
            }
        }
    }

    /** The system prompt's part on skills, or null when the agent has none. */
    String listing(String tenantId, List<AgentSkill> pinned, boolean selfHosted) {
        if (pinned.isEmpty()) return null;
        List<String> lines = new ArrayList<>();
        lines.add("# Skills");
        lines.add("You have skills: folders of instructions, scripts and resources for particular tasks. When a task matches a skill's "
                + "description, read its SKILL.md first (with the read tool or bash) and follow it; open the skill's other files only "
                + "when SKILL.md points you to them."
                + (selfHosted ? " The skills' paths are relative to your working directory." : ""));
        for (AgentSkill s : pinned) {
            skills.version(tenantId, s).ifPresent(v -> lines.add("- " + v.name() + ": " + v.description() + " (" + skillMd(v.name(), selfHosted) + ")"));
        }
        return String.join("\n", lines);
    }

    static String skillMd(String name, boolean selfHosted) {
        return (selfHosted ? "skills/" : DIR + "/") + name + "/SKILL.md";
    }

    /** Refuses a new session whose agent pins a skill version deleted since. */
    void requireExisting(String tenantId, List<AgentSkill> pinned) {
        for (AgentSkill s : pinned) if (skills.version(tenantId, s).isEmpty()) throw missing(s);
    }

    private static PaddockException missing(AgentSkill s) {
        return new PaddockException(ErrorCode.SKILL_VERSION_NOT_FOUND, "the agent pins version " + s.version() + " of skill " + s.skillId()
                + ", which no longer exists; update the agent's skills");
    }
}
