package dev.sqloop.fewshot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sqloop.common.message.NlConstraints;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ConstraintExtractorTest {
    private final ConstraintExtractor extractor = new ConstraintExtractor();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            How many orders were placed in 2024?                     | count | -    | -    | -  | -
            What is the number of customers?                         | count | -    | -    | -  | -
            What is the total revenue per region?                    | sum   | true | -    | -  | -
            Average order value for each customer                    | avg   | true | -    | -  | -
            What is the maximum price?                               | max   | -    | -    | -  | -
            What is the minimum salary by each department?           | min   | true | -    | -  | -
            Show the top 5 customers by revenue                      | -     | -    | desc | 5  | -
            List the first 10 orders                                 | -     | -    | -    | 10 | -
            Which three products have the lowest stock?              | -     | -    | asc  | -  | -
            Which author has the most publications?                  | -     | -    | desc | -  | -
            List unique cities of our customers                      | -     | -    | -    | -  | true
            How many distinct authors are there?                     | count | -    | -    | -  | true
            List the different cuisines                              | -     | -    | -    | -  | -
            How many students graduated in the last 10 years?        | count | -    | -    | -  | -
            Orders of the past 6 months, top 3 by amount             | -     | -    | desc | 3  | -
            The longest flights, sorted in ascending order           | -     | -    | asc  | -  | -
            Show customers sorted by name                            | -     | -    | asc  | -  | -
            Top ten restaurants with the highest rating per city     | -     | true | desc | 10 | -
            five most expensive cars                                 | -     | -    | desc | 5  | -
            Show all flights from Boston                             | -     | -    | -    | -  | -
            What is the largest order by total price?                | -     | -    | desc | -  | -
            What is the total price of the largest order?            | sum   | -    | desc | -  | -
            """)
    void shouldExtractTheConstraintDictionary(String question, String agg, Boolean groupBy, String direction,
                                              Integer limit, Boolean distinct) {
        NlConstraints got = extractor.extract(question);
        assertEquals(new NlConstraints(agg, groupBy, direction, limit, distinct, got.subject()), got, question);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "How many stops do they have?|stops", "What is the number of citations per author?|citations",
            "What is the maximum range of each aircraft?|range", "Average order value for each customer|order"})
    void shouldNameWhatTheAggregateIsAbout(String question, String subject) {
        assertEquals(subject, extractor.extract(question).subject(), question);
    }

    @Test
    void shouldImposeNothingOnAPlainQuestion() {
        assertEquals(NlConstraints.NONE, extractor.extract("Show all flights from Boston to Denver"));
        assertEquals(NlConstraints.NONE, extractor.extract(null));
    }
}
