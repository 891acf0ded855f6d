package io.treecat.server;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded generators of what a hostile or buggy client sends (for {@link LiveProtocolFuzzIT}): names
 * drawn from every Unicode class a name can go wrong with, and mutations of a valid JSON body (type
 * swaps, deep nesting, huge strings, numbers at the limits, duplicate keys, truncation). Every choice
 * comes from the one {@link Random}, so a seed replays a run.
 */
final class HostileInputs {
    private static final ObjectMapper PLAIN = new ObjectMapper();
    /** Writes every non-ASCII character as {@code \\uXXXX}, so a lone surrogate reaches the server as JSON says it. */
    private static final ObjectMapper ESCAPING =
            new ObjectMapper().configure(JsonGenerator.Feature.ESCAPE_NON_ASCII, true);

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Names that each break one rule: controls, surrogates, direction marks, combining marks, path syntax. */
    private static final List<String> NAMES = List.of(
            "",
            " ",
            ".",
            "..",
            "../..",
            "../../up",
            "a/b",
            "/",
            "a\\b",
            "%2F",
            "a%2Fb",
            "%2e%2e",
            "a\u0000b",
            "\u0000",
            "a\u001Fb",
            "\u001F",
            "a\u007Fb",
            "a\u0085b",
            "a\tb",
            "a\nb",
            "a\rb",
            "s\uD800",
            "\uDFFFs",
            "\uDBFF\uDBFF",
            "\u202Eevil",
            "\u0627\u0644\u0639\u0631\u0628\u064A\u0629",
            "e\u0301",
            "\u0301",
            "a\u200Bb",
            "\uFEFFbom",
            "\uFFFF",
            "\uFFFE",
            "😀",
            "\uD83D\uDE00x",
            "MiXeD",
            "null",
            "@hive#x",
            "@warehouse#",
            "a.b",
            "a b",
            "a:b",
            "a*b",
            "a?b",
            "a'b",
            "a\"b",
            "<script>",
            "${jndi:x}",
            "CON",
            "*",
            "default");

    private final Random random;

    HostileInputs(Random random) {
        this.random = random;
    }

    Random random() {
        return random;
    }

    int nextInt(int bound) {
        return random.nextInt(bound);
    }

    boolean chance(int percent) {
        return random.nextInt(100) < percent;
    }

    <T> T pick(List<T> choices) {
        return choices.get(random.nextInt(choices.size()));
    }

    /** A name: mostly hostile, sometimes a plain fresh one (so creates also succeed and are tracked). */
    String name() {
        int kind = random.nextInt(10);
        if (kind < 5) {
            return pick(NAMES);
        }
        if (kind < 7) {
            return "fz" + Integer.toString(random.nextInt(1_000_000), 36) + pick(NAMES);
        }
        if (kind == 7) {
            // Longer than 255 bytes, the usual limit of a file name and of Hive's names.
            return "n".repeat(250 + random.nextInt(100)) + (chance(50) ? "\u00E9".repeat(30) : "");
        }
        if (kind == 8) {
            return randomChars(1 + random.nextInt(12));
        }
        return "fz" + Integer.toString(random.nextInt(1_000_000), 36);
    }

    /** Characters from anywhere in the BMP and beyond, surrogate halves included. */
    String randomChars(int length) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int range = random.nextInt(4);
            if (range == 0) {
                text.append((char) random.nextInt(0x80));
            } else if (range == 1) {
                text.append((char) random.nextInt(0x10000));
            } else if (range == 2) {
                text.append((char) (0xD800 + random.nextInt(0x800)));
            } else {
                text.appendCodePoint(0x10000 + random.nextInt(0x100000));
            }
        }
        return text.toString();
    }

    /** Percent-encodes a name for one path segment (UTF-8; a lone surrogate becomes {@code ?} as Java encodes it). */
    String segment(String name) {
        if (chance(10)) {
            return name; // raw, for the client library or the raw socket to refuse or send as is
        }
        return TreeCatTestServer.encode(name);
    }

    /** A value for a leaf of a JSON body: any JSON type, at its limits. */
    JsonNode value() {
        switch (random.nextInt(14)) {
            case 0:
                return NODES.nullNode();
            case 1:
                return NODES.booleanNode(random.nextBoolean());
            case 2:
                return NODES.numberNode(
                        pick(List.of(0L, -1L, Long.MAX_VALUE, Long.MIN_VALUE, (long) Integer.MAX_VALUE + 1)));
            case 3:
                return NODES.numberNode(new BigInteger("9".repeat(1 + random.nextInt(120))));
            case 4:
                return NODES.numberNode(pick(List.of(1.5, -0.0, Double.MAX_VALUE, Double.MIN_VALUE, 1e308)));
            case 5:
                return NODES.numberNode(new BigDecimal("1e" + (300 + random.nextInt(100))));
            case 6:
                return NODES.textNode(name());
            case 7:
                return NODES.textNode("x".repeat(random.nextInt(200_000)));
            case 8:
                return NODES.arrayNode();
            case 9:
                return NODES.objectNode();
            case 10:
                // Deeper than the server's limit (256); the text-level nesting of mutate goes past Jackson's 1,000.
                return nested(1 + random.nextInt(chance(50) ? 300 : 600));
            case 11: {
                ArrayNode array = NODES.arrayNode();
                for (int i = random.nextInt(50); i > 0; i--) {
                    array.add(name());
                }
                return array;
            }
            case 12: {
                ObjectNode object = NODES.objectNode();
                for (int i = random.nextInt(20); i > 0; i--) {
                    object.put(name(), name());
                }
                return object;
            }
            default:
                return NODES.textNode(randomChars(random.nextInt(40)));
        }
    }

    private JsonNode nested(int depth) {
        JsonNode node = NODES.numberNode(1);
        for (int i = 0; i < depth; i++) {
            if (random.nextBoolean()) {
                node = NODES.arrayNode().add(node);
            } else {
                ObjectNode object = NODES.objectNode();
                object.set("a", node);
                node = object;
            }
        }
        return node;
    }

    /**
     * A mutation of {@code template}, a valid body: a few nodes replaced by other types or values, a field
     * dropped or added, then the text written plainly or with non-ASCII escaped, and sometimes given a
     * duplicate key, cut short or left with a stray byte.
     */
    String mutate(JsonNode template) {
        JsonNode body = template.deepCopy();
        int mutations = random.nextInt(4);
        for (int i = 0; i < mutations; i++) {
            if (body.isContainerNode() && body.size() > 0) {
                body = mutateSomewhere(body);
            } else {
                body = value();
            }
        }
        String text = write(body);
        switch (random.nextInt(12)) {
            case 0:
                return duplicateKey(text);
            case 1:
                return text.substring(0, random.nextInt(text.length() + 1));
            case 2:
                return text + pick(List.of("}", "]", ",", "x", "\u0000", " {}"));
            case 3: {
                // Nesting deeper than any writer makes: org.bson's reader once overflowed its stack at 5,000.
                int depth = 1 + random.nextInt(6_000);
                return "[".repeat(depth) + text + "]".repeat(depth);
            }
            default:
                return text;
        }
    }

    String write(JsonNode body) {
        ObjectMapper mapper = chance(50) ? ESCAPING : PLAIN;
        try {
            return mapper.writeValueAsString(body);
        } catch (JsonProcessingException tooDeep) {
            // Jackson will not write past 1,000 levels: send what a client that does would send.
            return "[".repeat(1_001) + "1" + "]".repeat(1_001);
        }
    }

    private JsonNode mutateSomewhere(JsonNode root) {
        JsonNode node = root;
        // Walk down a random number of levels and change something in the container reached.
        while (true) {
            List<JsonNode> children = new ArrayList<>();
            node.elements().forEachRemaining(children::add);
            JsonNode child = children.isEmpty() ? null : pick(children);
            if (child == null || !child.isContainerNode() || child.size() == 0 || chance(40)) {
                break;
            }
            node = child;
        }
        if (node instanceof ObjectNode object) {
            List<String> fields = new ArrayList<>();
            Iterator<Map.Entry<String, JsonNode>> entries = object.fields();
            entries.forEachRemaining(entry -> fields.add(entry.getKey()));
            int action = random.nextInt(10);
            if (fields.isEmpty() || action == 0) {
                object.set(chance(50) ? name() : "extra", value());
            } else if (action == 1) {
                object.remove(pick(fields));
            } else if (action < 4 && object.get(fields.get(0)).isTextual()) {
                object.put(pick(fields), name());
            } else {
                object.set(pick(fields), value());
            }
        } else if (node instanceof ArrayNode array) {
            int index = random.nextInt(array.size());
            if (chance(20)) {
                array.remove(index);
            } else if (chance(30)) {
                array.add(value());
            } else {
                array.set(index, chance(50) ? NODES.textNode(name()) : value());
            }
        }
        return root;
    }

    private String duplicateKey(String text) {
        int colon = text.indexOf("\":");
        int open = colon < 0 ? -1 : text.lastIndexOf('"', colon - 1);
        int brace = open < 0 ? -1 : text.lastIndexOf('{', open);
        if (brace < 0) {
            return text;
        }
        String key = text.substring(open, colon + 2);
        return text.substring(0, brace + 1) + key + "1," + text.substring(brace + 1);
    }

    static JsonNode json(String text) {
        try {
            return PLAIN.readTree(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
