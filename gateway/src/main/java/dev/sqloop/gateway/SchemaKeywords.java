package dev.sqloop.gateway;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.Collection;
import java.util.TreeSet;

/**
 * JSON Schema keywords of a record component that come from the running gateway's settings or from the code's own
 * constants, not from an annotation's literal: the documented {@code maxLength} of a question is the
 * {@code SQLOOP_GATEWAY_MAX_QUESTION_CHARS} the validation checks, the datasource enum is the configured datasources.
 * A component names its rule with {@link From}; {@link OpenApiDocument} applies it when it generates the schema.
 */
enum SchemaKeywords {
    QUESTION_CHARS {
        @Override
        void apply(ObjectNode schema, GatewayConfig config) {
            schema.put("maxLength", config.maxQuestionChars());
        }
    },
    SQL_CHARS {
        @Override
        void apply(ObjectNode schema, GatewayConfig config) {
            schema.put("maxLength", config.maxSqlChars());
        }
    },
    ATTEMPTS {
        @Override
        void apply(ObjectNode schema, GatewayConfig config) {
            schema.put("maximum", config.maxAttemptsLimit());
            schema.put("default", config.defaultMaxAttempts());
        }
    },
    DATASOURCE {
        @Override
        void apply(ObjectNode schema, GatewayConfig config) {
            enumOf(schema, config.datasources().keySet());
        }
    },
    /** Question metadata: a few short labels (the value schema, strings, is the map's own and completes this one). */
    METADATA {
        @Override
        void apply(ObjectNode schema, GatewayConfig config) {
            schema.put("maxProperties", QuestionRequest.MAX_METADATA_ENTRIES);
            schema.putObject("propertyNames").put("maxLength", QuestionRequest.MAX_METADATA_KEY_CHARS);
            schema.putObject("additionalProperties").put("maxLength", QuestionRequest.MAX_METADATA_VALUE_CHARS);
        }
    },
    /** Array items: a failure reason a retry may pick. */
    RETRY_REASONS {
        @Override
        void apply(ObjectNode schema, GatewayConfig config) {
            ObjectNode items = schema.has("items") ? (ObjectNode) schema.get("items") : schema.putObject("items");
            enumOf(items, Retries.RETRYABLE);
            schema.put("description", "failure reasons to retry (any but cancelled); default: " + new TreeSet<>(Retries.DEFAULT_REASONS));
        }
    };

    abstract void apply(ObjectNode schema, GatewayConfig config);

    private static void enumOf(ObjectNode schema, Collection<String> values) {
        ArrayNode out = schema.putArray("enum");
        new TreeSet<>(values).forEach(out::add);
    }

    /** The rule a record component's schema takes its keywords from. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER})
    @interface From {
        SchemaKeywords value();
    }
}
