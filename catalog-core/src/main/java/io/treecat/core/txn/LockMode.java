package io.treecat.core.txn;

/** Multiple-granularity lock modes (Gray et al.). */
enum LockMode {
    IS,
    IX,
    S,
    SIX,
    X;

    private static final boolean[][] COMPATIBLE = {
        //          IS     IX     S      SIX    X
        /* IS  */ {true, true, true, true, false},
        /* IX  */ {true, true, false, false, false},
        /* S   */ {true, false, true, false, false},
        /* SIX */ {true, false, false, false, false},
        /* X   */ {false, false, false, false, false},
    };

    boolean compatibleWith(LockMode other) {
        return COMPATIBLE[ordinal()][other.ordinal()];
    }

    /** The weakest mode that covers both (the lattice's least upper bound). */
    LockMode join(LockMode other) {
        if (this == other) {
            return this;
        }
        if (this == X || other == X) {
            return X;
        }
        if ((this == S && other == IX) || (this == IX && other == S) || this == SIX || other == SIX) {
            return SIX;
        }
        if (this == IS) {
            return other;
        }
        if (other == IS) {
            return this;
        }
        return X;
    }
}
