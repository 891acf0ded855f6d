package io.treecat.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Random ids and paths that favour the characters most likely to break an encoding. */
public final class RandomPaths {
    private static final String[] ODD = {
        "\u0000",
        "\u0001",
        "\u0002",
        "/",
        "\\",
        "\u007F",
        "\u00FF",
        "\uFFFF",
        "\uD83D\uDE00",
        "a",
        "b",
        "=",
        " ",
        "%1F",
        "."
    };

    private RandomPaths() {}

    public static String id(Random random) {
        int length = 1 + random.nextInt(4);
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < length; i++) {
            if (random.nextInt(3) == 0) {
                id.append(ODD[random.nextInt(ODD.length)]);
            } else {
                id.append((char) ('a' + random.nextInt(3)));
            }
        }
        return id.toString();
    }

    public static ObjectPath path(Random random, int depth) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < depth; i++) {
            ids.add(id(random));
        }
        return new ObjectPath(ids);
    }
}
