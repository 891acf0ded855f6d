package io.treecat.core.history;

/** What a commit did to one path. The codes are persisted in commit records: never renumber. */
public enum ChangeKind {
    ADDED(1),
    UPDATED(2),
    REMOVED(3);

    private final int code;

    ChangeKind(int code) {
        this.code = code;
    }

    int code() {
        return code;
    }

    static ChangeKind fromCode(int code) {
        for (ChangeKind kind : values()) {
            if (kind.code == code) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown change kind code " + code);
    }
}
