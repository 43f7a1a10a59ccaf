package dev.paddock.agents.skills;

import dev.paddock.core.ErrorCode;
import dev.paddock.core.PaddockException;
import dev.paddock.core.Text;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The YAML front matter of a SKILL.md: the block between a first line {@code ---} and the next line {@code ---},
 * with the skill's {@code name} and {@code description}, checked as Anthropic's Skills API checks them. A missing
 * {@code name} falls back to the skill's top-level directory.
 */
public record SkillFrontMatter(String name, String description) {
    static final int MAX_NAME = 64;
    static final int MAX_DESCRIPTION = 1024;
    private static final Pattern NAME = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
    private static final Pattern XML_TAG = Pattern.compile("<\\s*/?\\s*[A-Za-z][^>]*>");
    private static final YAMLMapper YAML = YAMLMapper.builder().build();

    /** Reads SKILL.md's bytes; {@code directory} names the skill when its front matter has no {@code name}. */
    public static SkillFrontMatter parse(byte[] skillMd, String directory) {
        String text = utf8(skillMd);
        if (text.startsWith("\uFEFF")) text = text.substring(1);
        String[] lines = text.split("\r?\n", -1);
        if (lines.length == 0 || !lines[0].strip().equals("---")) {
            throw invalid("SKILL.md must open with YAML front matter: a line '---', then 'name:' and 'description:', then a line '---'");
        }
        StringBuilder yaml = new StringBuilder();
        int end = -1;
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].strip().equals("---")) {
                end = i;
                break;
            }
            yaml.append(lines[i]).append('\n');
        }
        if (end < 0) throw invalid("SKILL.md's front matter is not closed: add a line '---' after its last field");
        Map<?, ?> fields = fields(yaml.toString());
        String name = field(fields, "name", ErrorCode.SKILL_NAME_INVALID);
        String description = field(fields, "description", ErrorCode.SKILL_DESCRIPTION_INVALID);
        return new SkillFrontMatter(checkName(name != null ? name.strip() : directory, name != null), checkDescription(description));
    }

    /** The name, or a 400 {@code skill_name_invalid} that says which rule it breaks. */
    static String checkName(String name, boolean fromFrontMatter) {
        String source = fromFrontMatter ? "SKILL.md's 'name'" : "the skill's name (its directory, as SKILL.md has no 'name')";
        if (name == null || name.isEmpty()) throw new PaddockException(ErrorCode.SKILL_NAME_INVALID, source + " is empty");
        if (name.length() > MAX_NAME) throw new PaddockException(ErrorCode.SKILL_NAME_INVALID, source + " is over " + MAX_NAME + " characters");
        if (!NAME.matcher(name).matches()) {
            throw new PaddockException(ErrorCode.SKILL_NAME_INVALID, source + " must be lower-case letters, digits and single hyphens "
                    + "(like pdf-forms), got '" + Text.clip(name, 70) + "'");
        }
        for (String reserved : new String[] {"anthropic", "claude"}) {
            if (name.contains(reserved)) throw new PaddockException(ErrorCode.SKILL_NAME_INVALID, source + " must not contain the reserved word '" + reserved + "'");
        }
        return name;
    }

    private static String checkDescription(String description) {
        if (description == null || description.isBlank()) {
            throw new PaddockException(ErrorCode.SKILL_DESCRIPTION_INVALID, "SKILL.md's front matter needs a non-empty 'description': what the skill does and when to use it");
        }
        String d = description.strip();
        if (d.length() > MAX_DESCRIPTION) {
            throw new PaddockException(ErrorCode.SKILL_DESCRIPTION_INVALID, "SKILL.md's 'description' is over " + MAX_DESCRIPTION + " characters");
        }
        if (XML_TAG.matcher(d).find()) throw new PaddockException(ErrorCode.SKILL_DESCRIPTION_INVALID, "SKILL.md's 'description' must not contain XML tags");
        return d;
    }

    private static Map<?, ?> fields(String yaml) {
        Object parsed;
        try {
            parsed = YAML.readValue(yaml, Object.class);
        } catch (JacksonException e) {
            throw invalid("SKILL.md's front matter is not valid YAML: " + Text.clip(e.getOriginalMessage(), 200));
        }
        if (!(parsed instanceof Map<?, ?> m)) throw invalid("SKILL.md's front matter must be YAML fields such as 'name: pdf-forms'");
        return m;
    }

    private static String field(Map<?, ?> fields, String key, ErrorCode code) {
        Object v = fields.get(key);
        if (v == null) return null;
        if (!(v instanceof String s)) throw new PaddockException(code, "SKILL.md's '" + key + "' must be a string");
        return s;
    }

    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw invalid("SKILL.md must be UTF-8 text");
        }
    }

    private static PaddockException invalid(String message) {
        return new PaddockException(ErrorCode.SKILL_MD_INVALID, message);
    }
}
