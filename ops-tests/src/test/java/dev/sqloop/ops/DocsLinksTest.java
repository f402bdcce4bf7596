package dev.sqloop.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the repository's Markdown reaches a file that exists and, with a {@code #fragment}, a heading
 * there: the README moved most of its text into {@code docs/}, and a link to a section that moved is a dead end for
 * the reader who follows it.
 */
class DocsLinksTest {

    private static final Pattern LINK = Pattern.compile("(?<!!)\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.+?)\\s*#*\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Set<String> SKIPPED_DIRS = Set.of("target", "node_modules", ".sqloop", ".git", ".mvn");

    @Test
    void everyRelativeLinkReachesAFileAndItsHeading() throws IOException {
        Path root = Repo.root();
        List<Path> pages = markdown(root);
        assertTrue(pages.size() > 20, "the repository's Markdown pages: " + pages.size());
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            for (String target : links(page)) {
                if (target.matches("^[a-z][a-z0-9+.-]*:.*") || target.startsWith("//")) continue; // http:, mailto:
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String fragment = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(decode(file)).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(root.relativize(page) + ": " + target + " (no such file)");
                } else if (fragment != null && !fragment.isEmpty() && resolved.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(resolved, DocsLinksTest::anchors).contains(fragment.toLowerCase(Locale.ROOT))) {
                    broken.add(root.relativize(page) + ": " + target + " (no such heading in " + root.relativize(resolved) + ")");
                }
            }
        }
        assertTrue(checked > 50, "relative links checked: " + checked);
        assertEquals(List.of(), broken, "dead relative links");
    }

    @Test
    void slugsFollowGitHubsRules() {
        assertEquals("settings-sqloop_fewshot_", slug("Settings (`SQLOOP_FEWSHOT_*`)"));
        assertEquals("schema-linking-recall-first", slug("Schema linking: recall first"));
        assertEquals("what-the-demo-prints", slug("What the demo prints"));
        assertEquals("eval-what-the-figures-mean", slug("Eval: what the figures mean"));
        assertEquals("a--b", slug("A — B"));
    }

    private static List<Path> markdown(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> root.relativize(p).toString().split("/").length > 0)
                    .filter(p -> {
                        for (Path part : root.relativize(p)) if (SKIPPED_DIRS.contains(part.toString())) return false;
                        return true;
                    })
                    .sorted().toList();
        }
    }

    /** The link targets of a page, outside fenced code blocks and inline code. */
    private static List<String> links(Path page) {
        List<String> targets = new ArrayList<>();
        boolean fenced = false;
        for (String line : lines(page)) {
            if (FENCE.matcher(line).find()) {
                fenced = !fenced;
                continue;
            }
            if (fenced) continue;
            Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
            while (m.find()) targets.add(m.group(1));
        }
        return targets;
    }

    private static Set<String> anchors(Path page) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : lines(page)) {
            if (FENCE.matcher(line).find()) {
                fenced = !fenced;
                continue;
            }
            if (fenced) continue;
            Matcher m = HEADING.matcher(line);
            if (m.matches()) {
                String slug = slug(m.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher explicit = Pattern.compile("<a (?:name|id)=\"([^\"]+)\"").matcher(line);
            while (explicit.find()) anchors.add(explicit.group(1).toLowerCase(Locale.ROOT));
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, punctuation other than '-' and '_' dropped, each space a '-'. */
    static String slug(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') out.appendCodePoint(c);
            else if (c == ' ') out.append('-');
        });
        return out.toString();
    }

    private static String decode(String file) {
        return java.net.URLDecoder.decode(file.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static List<String> lines(Path page) {
        try {
            return Files.readAllLines(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
