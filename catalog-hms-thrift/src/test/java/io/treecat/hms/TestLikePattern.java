package io.treecat.hms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TestLikePattern {
    private static boolean sql(String pattern, String value) {
        return LikePattern.compile(pattern, LikePattern.Syntax.SQL).matches(value);
    }

    private static boolean jdoql(String pattern, String value) {
        return LikePattern.compile(pattern, LikePattern.Syntax.JDOQL_MATCHES).matches(value);
    }

    @Test
    void sqlWildcards() {
        assertThat(sql("us%", "us_east")).isTrue();
        assertThat(sql("us%", "eu")).isFalse();
        assertThat(sql("%east", "us_east")).isTrue();
        assertThat(sql("us_east", "usXeast")).isTrue();
        assertThat(sql("us_east", "us__east")).isFalse();
        assertThat(sql("2024-01-__", "2024-01-15")).isTrue();
        assertThat(sql("2024-01-__", "2024-01-1")).isFalse();
        assertThat(sql("%_%", "")).isFalse();
        assertThat(sql("%_%", "x")).isTrue();
        assertThat(sql("%", "")).isTrue();
        assertThat(sql("", "")).isTrue();
        assertThat(sql("", "a")).isFalse();
        assertThat(sql("a%b%a", "aba")).isTrue();
        assertThat(sql("a%b%a", "ab")).isFalse();
        assertThat(sql("a%a", "a")).isFalse(); // the head and the tail may not overlap
        assertThat(sql("%s%", "us")).isTrue();
        assertThat(sql("E%", "eu")).isFalse(); // case-sensitive
        assertThat(sql("_", "\uD83D\uDE00")).isTrue(); // one code point
    }

    @Test
    void backslashEscapes() {
        assertThat(sql("us\\_east", "us_east")).isTrue();
        assertThat(sql("us\\_east", "usXeast")).isFalse();
        assertThat(sql("50\\%off", "50%off")).isTrue();
        assertThat(sql("50\\%off", "50 off")).isFalse();
        assertThat(sql("a\\\\", "a\\")).isTrue();
        assertThat(sql("a\\", "a\\")).isTrue(); // a trailing backslash is itself
        assertThat(LikePattern.compile("us\\_e%", LikePattern.Syntax.SQL).literalPrefix())
                .isEqualTo("us_e");
        assertThat(LikePattern.compile("us\\_east", LikePattern.Syntax.SQL).isLiteral())
                .isTrue();
        assertThat(LikePattern.compile("us_east", LikePattern.Syntax.SQL).isLiteral())
                .isFalse();
    }

    @Test
    void jdoqlSpelling() {
        assertThat(jdoql("ICE.*", "ICEBERG")).isTrue();
        assertThat(jdoql(".*BER.*", "ICEBERG")).isTrue();
        assertThat(jdoql("ICE", "ICEBERG")).isFalse();
        assertThat(jdoql("I.EBERG", "ICEBERG")).isTrue();
        assertThat(jdoql("ICE%", "ICEBERG")).isFalse(); // % and _ are plain characters here
        assertThat(jdoql("a\\.b", "a.b")).isTrue();
        assertThat(jdoql("a\\.b", "axb")).isFalse();
        // Hive's client sends the table pattern ord* as (?i)ord.*
        assertThat(jdoql("(?i)ord.*", "ORDERS")).isTrue();
        assertThat(jdoql("(?i)ord.*", "lord")).isFalse();
        assertThat(jdoql("ord.*", "ORDERS")).isFalse();
    }

    @Test
    void noCatastrophicBacktracking() {
        String value = "a".repeat(100_000) + "b";
        String pattern = "%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%c";
        assertTimeoutPreemptively(
                Duration.ofSeconds(5), () -> assertThat(sql(pattern, value)).isFalse());
        assertTimeoutPreemptively(
                Duration.ofSeconds(5),
                () -> assertThat(sql("%" + "_".repeat(50) + "c", value)).isFalse());
    }
}
