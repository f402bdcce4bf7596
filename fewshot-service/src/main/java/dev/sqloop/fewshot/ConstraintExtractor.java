package dev.sqloop.fewshot;

import dev.sqloop.common.Whitespace;
import dev.sqloop.common.message.NlConstraints;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what the question demands of the SQL (002's constraint dictionary): an aggregate, grouping, ordering and
 * its direction, an explicit row limit, distinctness. Deterministic keyword rules, run once per question; when in
 * doubt a field stays null so the validator imposes nothing.
 */
public final class ConstraintExtractor {
    private static final String NUMBER = "(\\d+|one|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty|hundred)";
    private static final Map<String, Integer> WORDS = Map.ofEntries(Map.entry("one", 1), Map.entry("two", 2),
            Map.entry("three", 3), Map.entry("four", 4), Map.entry("five", 5), Map.entry("six", 6), Map.entry("seven", 7),
            Map.entry("eight", 8), Map.entry("nine", 9), Map.entry("ten", 10), Map.entry("twenty", 20),
            Map.entry("fifty", 50), Map.entry("hundred", 100));

    // "the phone number of the salesperson" names an identifier, not a count
    private static final String NOT_AN_IDENTIFIER = "(?<!phone |account |serial |reference |tracking |invoice |order |flight |room |seat "
            + "|part |model |version |street |house |registration |license |licence |id )";
    private static final Pattern COUNT = Pattern.compile("\\b(how many|" + NOT_AN_IDENTIFIER + "number of|count|counts|counting)\\b");
    private static final Pattern AVG = Pattern.compile("\\b(average|avg|mean)\\b");
    // "by total price" names an ordering key, not a sum (it blocked the demo's "largest order by total price")
    private static final Pattern SUM = Pattern.compile("(?<!\\bby )\\btotal\\b|\\b(sum|summed|combined)\\b");
    private static final Pattern MAX = Pattern.compile("\\b(maximum|max)\\b");
    private static final Pattern MIN = Pattern.compile("\\b(minimum|min)\\b");
    private static final Pattern GROUP = Pattern.compile("\\b(per|for each|by each|in each|for every|of each|each|grouped by|group by|broken down by|breakdown by)\\b");
    private static final Pattern DESC = Pattern.compile("\\b(top|highest|most|largest|biggest|greatest|best|maximum|descending|desc|latest|newest|longest)\\b");
    private static final Pattern ASC = Pattern.compile("\\b(lowest|least|fewest|smallest|bottom|worst|cheapest|ascending|asc|earliest|oldest|shortest)\\b");
    private static final Pattern SORTED = Pattern.compile("\\b(sorted|ordered|order by|sort by|rank|ranked|in order)\\b");
    // "the last 10 years", "the first 6 months" name a time window, not a number of rows
    private static final String NOT_TIME = "(?!\\s+(?:calendar\\s+|business\\s+)?(?:second|minute|hour|day|week|month|quarter|year)s?\\b)";
    private static final Pattern LIMIT = Pattern.compile("\\b(?:top|first|last|bottom|limit(?: to)?|only)\\s+" + NUMBER + "\\b" + NOT_TIME
            + "|\\b" + NUMBER + "\\s+(?:most|least|highest|lowest|largest|smallest|best|worst|biggest)\\b");
    // "different" is too often "across different courses" to mean DISTINCT
    private static final Pattern DISTINCT = Pattern.compile("\\b(unique|distinct)\\b");
    /** An order the question spells out wins over its superlatives ("the longest …, sorted in ascending order"). */
    private static final Pattern EXPLICIT_DESC = Pattern.compile("\\b(descending|desc|highest to lowest|largest to smallest|most to least)\\b");
    private static final Pattern EXPLICIT_ASC = Pattern.compile("\\b(ascending|asc|lowest to highest|smallest to largest|least to most)\\b");

    public NlConstraints extract(String question) {
        String q = question == null ? "" : Whitespace.collapse(question.toLowerCase(Locale.ROOT));
        String aggregation = aggregation(q);
        boolean groupBy = GROUP.matcher(q).find();
        Integer limit = limit(q);
        String direction = explicitDirection(q);
        String subject = aggregation == null ? null : subject(q);
        if (direction != null) {
            return new NlConstraints(aggregation, groupBy ? Boolean.TRUE : null, direction, limit,
                    DISTINCT.matcher(q).find() ? Boolean.TRUE : null, subject);
        }
        // "the highest" etc. name an ordering; "maximum" alone is an aggregate unless a limit asks for rows
        boolean desc = DESC.matcher(q).find() && !(aggregation != null && aggregation.equals("max") && limit == null);
        boolean asc = ASC.matcher(q).find() && !(aggregation != null && aggregation.equals("min") && limit == null);
        if (desc && !asc) direction = "desc";
        else if (asc && !desc) direction = "asc";
        else if (desc) direction = DESC.matcher(q).results().findFirst().orElseThrow().start()
                < ASC.matcher(q).results().findFirst().orElseThrow().start() ? "desc" : "asc";
        else if (SORTED.matcher(q).find()) direction = "asc";
        boolean distinct = DISTINCT.matcher(q).find();
        return new NlConstraints(aggregation, groupBy ? Boolean.TRUE : null, direction, limit, distinct ? Boolean.TRUE : null, subject);
    }

    private static final Pattern SUBJECT = Pattern.compile("\\b(?:how many|" + NOT_AN_IDENTIFIER + "number of|count of|average|avg|mean|total|sum of|maximum|max|"
            + "minimum|min|highest|lowest)\\s+(?:the\\s+|of\\s+|number of\\s+)*([a-z][a-z_]+)");

    /** The noun after the aggregate's word: what a stored column may already count or measure. */
    private static String subject(String q) {
        Matcher m = SUBJECT.matcher(q);
        return m.find() ? m.group(1) : null;
    }

    private static String explicitDirection(String q) {
        Matcher d = EXPLICIT_DESC.matcher(q);
        Matcher a = EXPLICIT_ASC.matcher(q);
        boolean desc = d.find();
        boolean asc = a.find();
        if (desc && asc) return d.start() < a.start() ? "desc" : "asc";
        return desc ? "desc" : asc ? "asc" : null;
    }

    private static String aggregation(String q) {
        if (COUNT.matcher(q).find()) return "count";
        if (AVG.matcher(q).find()) return "avg";
        if (SUM.matcher(q).find()) return "sum";
        if (MAX.matcher(q).find()) return "max";
        if (MIN.matcher(q).find()) return "min";
        return null;
    }

    private static Integer limit(String q) {
        Matcher m = LIMIT.matcher(q);
        if (!m.find()) return null;
        String n = m.group(1) != null ? m.group(1) : m.group(2);
        return WORDS.containsKey(n) ? WORDS.get(n) : Integer.valueOf(n);
    }
}
