package dev.paddock.agents.skills;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.paddock.core.PaddockException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules of a skill upload: one top-level directory, safe relative paths, a SKILL.md with valid front matter, limits. */
class SkillUploadTest {
    static final String SKILL_MD = "---\nname: csv-report\ndescription: Summarise a CSV file. Use when the user hands you a CSV.\n---\n# Steps\n";

    static SkillFile file(String path, String content) {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        return new SkillFile(path, bytes.length, () -> new ByteArrayInputStream(bytes));
    }

    static String refusal(List<SkillFile> files, SkillLimits limits) {
        try {
            SkillUpload.check(files, limits);
        } catch (PaddockException e) {
            return e.code();
        }
        throw new AssertionError("the upload was accepted");
    }

    static String refusal(SkillFile... files) {
        return refusal(List.of(files), SkillLimits.DEFAULTS);
    }

    @Test
    void aSkillDirectoryIsReadWithItsFrontMatterAndRelativePaths() {
        SkillUpload u = SkillUpload.check(List.of(file("report/scripts/run.py", "print(1)\n"), file("report/SKILL.md", SKILL_MD)), SkillLimits.DEFAULTS);
        assertThat(u.directory()).isEqualTo("report");
        assertThat(u.name()).isEqualTo("csv-report");
        assertThat(u.description()).isEqualTo("Summarise a CSV file. Use when the user hands you a CSV.");
        assertThat(u.files()).extracting(SkillFile::path).containsExactly("SKILL.md", "scripts/run.py");
        assertThat(u.bytes()).isEqualTo(SKILL_MD.length() + 9);
    }

    @Test
    void pathsThatClimbOutAreAbsoluteOrStraddleDirectoriesAreRefused() {
        assertThat(refusal(file("report/../../etc/SKILL.md", SKILL_MD))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("report/SKILL.md", SKILL_MD), file("report/./x", "x"))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("/report/SKILL.md", SKILL_MD))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("report\\SKILL.md", SKILL_MD))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("report//SKILL.md", SKILL_MD))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("SKILL.md", SKILL_MD))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("report/SKILL.md", SKILL_MD), file("other/x.txt", "x"))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("report/SKILL.md", SKILL_MD), file("report/SKILL.md", SKILL_MD))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("report/SKILL.md", SKILL_MD), file("report/a", "x"), file("report/a/b", "y"))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("report/SKILL.md", SKILL_MD), file("report/a\u0000b", "x"))).isEqualTo("skill_path_invalid");
        assertThat(refusal(file("", SKILL_MD))).isEqualTo("skill_path_invalid");
    }

    @Test
    void skillMdMustBeAtTheRootWithFrontMatter() {
        assertThat(refusal(file("report/docs/SKILL.md", SKILL_MD))).isEqualTo("skill_md_missing");
        assertThat(refusal(file("report/skill.md", SKILL_MD))).isEqualTo("skill_md_missing");
        assertThat(refusal(file("report/SKILL.md", "# no front matter\n"))).isEqualTo("skill_md_invalid");
        assertThat(refusal(file("report/SKILL.md", "---\nname: csv-report\ndescription: open\n"))).isEqualTo("skill_md_invalid");
        assertThat(refusal(file("report/SKILL.md", "---\nname: [unclosed\n---\n"))).isEqualTo("skill_md_invalid");
        assertThat(refusal(file("report/SKILL.md", "---\n- a list\n---\n"))).isEqualTo("skill_md_invalid");
        byte[] latin1 = "---\nname: r\ndescription: caf\u00e9\n---\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(refusal(List.of(new SkillFile("report/SKILL.md", latin1.length, () -> new ByteArrayInputStream(latin1))), SkillLimits.DEFAULTS))
                .isEqualTo("skill_md_invalid");
    }

    @Test
    void nameAndDescriptionFollowTheSkillsRules() {
        assertThat(refusal(file("r/SKILL.md", SKILL_MD.replace("csv-report", "CSV_Report")))).isEqualTo("skill_name_invalid");
        assertThat(refusal(file("r/SKILL.md", SKILL_MD.replace("csv-report", "-csv")))).isEqualTo("skill_name_invalid");
        assertThat(refusal(file("r/SKILL.md", SKILL_MD.replace("csv-report", "csv--report")))).isEqualTo("skill_name_invalid");
        assertThat(refusal(file("r/SKILL.md", SKILL_MD.replace("csv-report", "claude-helper")))).isEqualTo("skill_name_invalid");
        assertThat(refusal(file("r/SKILL.md", SKILL_MD.replace("csv-report", "a".repeat(65))))).isEqualTo("skill_name_invalid");
        assertThat(refusal(file("r/SKILL.md", SKILL_MD.replace("csv-report", "42")))).isEqualTo("skill_name_invalid"); // a number, not a string
        assertThat(refusal(file("r/SKILL.md", "---\nname: csv-report\n---\n"))).isEqualTo("skill_description_invalid");
        assertThat(refusal(file("r/SKILL.md", "---\nname: csv-report\ndescription: \"  \"\n---\n"))).isEqualTo("skill_description_invalid");
        assertThat(refusal(file("r/SKILL.md", "---\nname: csv-report\ndescription: use <tool>x</tool>\n---\n"))).isEqualTo("skill_description_invalid");
        assertThat(refusal(file("r/SKILL.md", "---\nname: csv-report\ndescription: " + "d".repeat(1025) + "\n---\n"))).isEqualTo("skill_description_invalid");
        // without a name, the directory names the skill, under the same rules
        assertThat(SkillUpload.check(List.of(file("csv-report/SKILL.md", "---\ndescription: d\n---\n")), SkillLimits.DEFAULTS).name()).isEqualTo("csv-report");
        assertThat(refusal(file("Reports/SKILL.md", "---\ndescription: d\n---\n"))).isEqualTo("skill_name_invalid");
        // a description may compare with < and > when they make no tag
        assertThat(SkillUpload.check(List.of(file("r/SKILL.md", "---\nname: r\ndescription: when rows < 10 or > 5\n---\n")), SkillLimits.DEFAULTS)
                .description()).isEqualTo("when rows < 10 or > 5");
    }

    @Test
    void sizeAndFileCountAreCapped() {
        assertThat(refusal(List.of(), SkillLimits.DEFAULTS)).isEqualTo("skill_files_missing");
        List<SkillFile> many = new ArrayList<>(List.of(file("r/SKILL.md", SKILL_MD)));
        for (int i = 0; i < 3; i++) many.add(file("r/f" + i, "x"));
        assertThat(refusal(many, new SkillLimits(1 << 20, 3))).isEqualTo("skill_too_many_files");
        assertThat(SkillUpload.check(many, new SkillLimits(1 << 20, 4)).files()).hasSize(4);
        assertThat(refusal(List.of(file("r/SKILL.md", SKILL_MD), file("r/big", "x".repeat(100))), new SkillLimits(SKILL_MD.length() + 99, 10)))
                .isEqualTo("skill_too_large");
        assertThatThrownBy(() -> new SkillLimits(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
