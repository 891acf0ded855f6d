package io.treecat.benchmarks.suite;

import java.util.Locale;

/**
 * How big a run is. {@code small} checks the whole picture on a 2-core machine in minutes; {@code
 * medium} gives figures worth comparing; {@code paper} runs at the TreeCat paper's scale (§6) and
 * takes hours.
 */
public enum Preset {
    SMALL,
    MEDIUM,
    PAPER;

    public static Preset parse(String name) {
        for (Preset preset : values()) {
            if (preset.label().equals(name)) {
                return preset;
            }
        }
        throw new IllegalArgumentException("Unknown preset '" + name + "': use small, medium or paper");
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The value this preset takes, of three given smallest first. */
    public <T> T pick(T small, T medium, T paper) {
        return switch (this) {
            case SMALL -> small;
            case MEDIUM -> medium;
            case PAPER -> paper;
        };
    }
}
